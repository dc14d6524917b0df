import HandoffCommandLine
import HandoffClient

/// `handoff status`: the daemon's state.
enum StatusCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print the status as a JSON object.")
    }

    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Show the daemon's state: adapter, paired devices, available and current activities (daemon).")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let status = try await context.service().status()
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(status))
            return .success
        }
        var lines = ["daemon: handoffd \(status.version)"]
        lines.append("adapter: " + adapterLine(status))
        if let scanning = status.scanning { lines.append("scanning: \(scanning)") }
        lines.append("paired devices: \(status.pairedDevices)")
        lines.append("available activities: \(status.availableActivities)")
        // The app's name comes from the offering process or its declaration: peer-chosen text, shown escaped.
        let app = status.currentActivityApp.map { ", offered by " + ActivitySummary.printable($0) } ?? ""
        lines.append("current activity: " + (status.currentActivity.map {
            "\($0.title) (\($0.type))" + app } ?? "none"))
        context.terminal.out(lines.joined(separator: "\n") + "\n")
        return .success
    }

    /// `hci0 00:AA:01:00:00:00 (on; BlueZ's default)`, or `none (waiting for an adapter)`.
    static func adapterLine(_ status: DaemonStatus) -> String {
        guard let name = status.adapter else { return "none" + (status.adapterChoice.map { " (\($0))" } ?? "") }
        let details = [status.powered ? "on" : "off"] + (status.adapterChoice.map { [$0] } ?? [])
        return name + (status.adapterAddress.map { " \($0)" } ?? "") + " (" + details.joined(separator: "; ") + ")"
    }
}
