import HandoffClient
import HandoffCommandLine

/// `handoff devices`: paired devices.
enum DevicesCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print a JSON array of devices (id, name, inRange, lastSeenSecondsAgo).")
    }

    static let configuration = CommandConfiguration(
        name: "devices",
        abstract: "List your paired devices and whether each is in range (daemon).")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let devices = try await context.service().devices()
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(devices))
            return .success
        }
        if devices.isEmpty { context.terminal.note("no paired devices; pair one with 'handoff pair'") }
        for device in devices {
            let range = device.inRange ? "in range" : "out of range"
            context.terminal.out("\(ActivitySummary.printable(device.name))  \(range)  \(device.id)\n")
        }
        return .success
    }
}
