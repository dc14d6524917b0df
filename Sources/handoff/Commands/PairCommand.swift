import HandoffClient
import HandoffCommandLine

/// `handoff pair`: pair with a nearby device.
enum PairCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "pair",
        abstract: "Pair with a nearby device that is also running 'handoff pair' (daemon).",
        discussion: """
            Both devices show the same six-digit code; answer y on both if they match. Only paired devices \
            can see or continue your activities.
            """)

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await context.service()
        context.terminal.note("waiting for a nearby device running 'handoff pair'…")
        let terminal = context.terminal
        let device = try await service.pair { code in
            terminal.err("Pair with '\(code.deviceName)'? Both screens must show \(code.code). [y/N] ")
            let answer = terminal.readLine() ?? ""
            // A terminal echoes the answer; from a pipe, show it, so the transcript reads right.
            if !terminal.inputIsTerminal { terminal.err(answer + "\n") }
            return answer.lowercased().hasPrefix("y")
        }
        context.terminal.note("paired with '\(device.name)' (\(device.id))")
        return .success
    }
}
