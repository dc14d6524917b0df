import HandoffCommandLine

/// `handoff unpair DEVICE`: forget a paired device.
enum UnpairCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let device = Argument<String>(
            "device", help: "The device's name or id, as 'handoff devices' shows it.",
            completion: .shellCommand("handoff devices --json | sed -n 's/.*\"name\" : \"\\(.*\\)\",*/\\1/p'"))
    }

    static let configuration = CommandConfiguration(
        name: "unpair",
        abstract: "Forget a paired device; it can no longer see or continue your activities (daemon).")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let name = invocation[\.device] ?? ""
        try await context.service().unpair(name)
        context.terminal.note("unpaired '\(name)'")
        return .success
    }
}
