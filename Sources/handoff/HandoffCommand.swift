import HandoffCommandLine

/// A `handoff` command that runs: its parameters, its description and its `run`, in one type.
protocol HandoffCommand: RunnableCommand where Context == CommandContext {}

/// A `handoff` command that groups subcommands (`handoff note`).
protocol HandoffCommandGroup: CommandGroup where Context == CommandContext {}
