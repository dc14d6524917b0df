import HandoffCommandLine

/// The `handoff` command tree: the single declaration the parser, help, completions, the manual page and the
/// dispatch of a parsed command line all follow from.
enum RootCommand: HandoffCommandGroup {
    /// The program version, printed by `--version`.
    static let version = "0.1.0"

    /// The root command with every subcommand, as the parser and the generators read it.
    static let spec = command

    static let configuration = CommandConfiguration(
        name: "handoff",
        abstract: "Continue what you were doing on another of your Linux machines, over Bluetooth LE.",
        discussion: """
            handoff offers your current activity, such as the note you are editing, to your other paired \
            devices nearby, and continues on this machine an activity one of them offers.

            Commands marked "(daemon)" talk to the handoff daemon and fail with exit status 69 when it is not \
            reachable. The note commands list, show and edit work on the local note store without it (edit then \
            saves the note but cannot offer it, and exits 69).
            """,
        sections: [exitStatus, environment, files],
        version: version)

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [
            NoteCommand.self,
            ContinueCommand.self,
            ShareCommand.self,
            InboxCommand.self,
            OutboxCommand.self,
            WatchCommand.self,
            PromptCommand.self,
            DevicesCommand.self,
            PairCommand.self,
            UnpairCommand.self,
            StatusCommand.self,
            DoctorCommand.self,
            CompletionsCommand.self,
            ManualCommand.self,
            CopyCommand.self,
            PasteCommand.self,
            ClipboardCommand.self,
            OpenCommand.self,
            BrowserHostCommand.self,
            ShellInitCommand.self,
            TerminalCommand.self,
            EditorGroupCommand.self,
        ]
    }

    static let exitStatus = HelpSection(
        "EXIT STATUS",
        entries: [
            .init("0", "Success."),
            .init("1", "Failure not covered below."),
            .init("3", "No activity is available (or none matches --from/--type)."),
            .init("4", "The activity could not be continued; the message carries the sender's error code."),
            .init("5", "The note was continued but kept as a conflict copy beside your local note."),
            .init("6", "The editor could not be started or exited with an error; what it saved is kept."),
            .init("7", "The desktop cannot do it: no clipboard, nothing on it handoff carries, or xdg-open failed."),
            .init("64", "Usage error: unknown option, missing or bad value."),
            .init("65", "Bad data, such as a note that is not UTF-8 text."),
            .init("66", "No such note or device."),
            .init("69", "The handoff daemon is not reachable."),
            .init("70", "Internal error; please report it."),
            .init("74", "Reading or writing a file failed."),
            .init("77", "The daemon refused the request."),
        ])

    static let environment = HelpSection(
        "ENVIRONMENT",
        entries: [
            .init("VISUAL, EDITOR", "The editor for notes: VISUAL, else EDITOR, else vi. A shell command line."),
            .init("XDG_DATA_HOME", "Notes live in $XDG_DATA_HOME/handoff/notes (default ~/.local/share)."),
            .init("HOME", "Used when XDG_DATA_HOME is unset or not an absolute path."),
            .init("HANDOFF_BUS_ADDRESS", "The bus the daemon is on: system (the default), session, or a D-Bus "
                + "address such as unix:path=/run/handoff/bus."),
            .init("WAYLAND_DISPLAY, DISPLAY", "The desktop whose clipboard copy, paste and clipboard follow use: "
                + "Wayland through wl-copy/wl-paste, else X11 through xclip."),
            .init("HANDOFF_CLONES", "Folders holding your git clones, separated by ':', searched by continue for "
                + "a terminal's repository (default ~/src ~/code ~/projects ~/git ~/repos ~/work ~/dev ~)."),
            .init("HANDOFF_TERMINAL_ENV", "Names of environment variables the shell-init hook may send; none "
                + "by default."),
        ])

    static let files = HelpSection(
        "FILES",
        entries: [
            .init("$XDG_DATA_HOME/handoff/notes/NAME.md", "One note per file, UTF-8; the first line is its title."),
            .init(
                "NAME (from DEVICE, YYYY-MM-DD HH.MM).md",
                "A conflict copy: a continued note kept beside a local note of the same name."),
        ])
}
