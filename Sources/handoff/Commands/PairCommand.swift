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
            // The name is the stranger's choice, up to its last byte: shown escaped and on one line, so it cannot
            // erase this line or draw a code of its own over the real one.
            terminal.err("Pair with '\(ActivitySummary.printable(code.deviceName))'? Both screens must show "
                + "\(ActivitySummary.printable(code.code)). [y/N] ")
            let answer = terminal.readLine() ?? ""
            // A terminal echoes the answer; from a pipe, show it, so the transcript reads right.
            if !terminal.inputIsTerminal { terminal.err(answer + "\n") }
            return answer.lowercased().hasPrefix("y")
        }
        context.terminal.note("paired with '\(ActivitySummary.printable(device.name))' (\(device.id))")
        return .success
    }
}
