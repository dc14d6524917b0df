import HandoffCommandLine
import HandoffDoctor

/// `handoff doctor`: what a stranger in radio range can learn of this machine, and whether handoff is set up
/// safely, each finding with its exact fix. Reads files and the kernel directly (HandoffDoctor); it needs neither
/// the daemon nor BlueZ's D-Bus API, so it also explains a machine where those do not run. A running daemon is
/// asked which adapter it uses (its Status); one that does not run is never started for it.
enum DoctorCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print the findings as a JSON object.")
        let adapter = Option<String>(
            "adapter", valueName: "name", help: "Check only this Bluetooth controller (hci0); by default every one.")
        let stateDirectory = Option<String>(
            "state-dir", valueName: "dir", help: "The daemon's state directory (its --state-dir).",
            defaultValue: "/var/lib/handoff", completion: .file)
        let mainConf = Option<String>(
            "main-conf", valueName: "file", help: "bluetoothd's configuration file.",
            defaultValue: "/etc/bluetooth/main.conf", completion: .file)
    }

    static let configuration = CommandConfiguration(
        name: "doctor",
        abstract: "Check what a stranger nearby can learn of this machine, and how handoff is set up.",
        discussion: """
            Checks LE privacy (main.conf's Privacy and what the kernel really does), the adapter's name (which \
            bluetoothd serves to anyone who connects), discoverable mode, the bluetoothd version, which adapter \
            handoffd uses (when it runs), bluetoothd's experimental flag, whether the kernel offers LE credit-based L2CAP channels, the installed D-Bus \
            policy, and the permissions of the daemon's state directory. Each finding is ok, info, warning or \
            unsafe, and says how to fix it: the configuration line or the command.

            Needs no privileges and no daemon (a running one is asked which adapter it uses; none is started). Exits 1 when something is unsafe, else 0 (warnings included).
            """,
        examples: [Example("handoff doctor", "Check this machine."),
                   Example("handoff doctor --json | jq '.findings[] | select(.severity == \"unsafe\")'",
                           "Only the unsafe findings.")])

    /// The JSON document: every finding, and the counts.
    struct Report: Encodable {
        var findings: [Finding]
        var unsafe: Int
        var warnings: Int
    }

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        var locations = DoctorFacts.Locations()
        locations.adapter = invocation[\.adapter]
        if let directory = invocation[\.stateDirectory] { locations.stateDirectory = directory }
        if let file = invocation[\.mainConf] { locations.mainConf = file }
        var facts = DoctorFacts.gather(locations)
        facts.daemon = await daemonAdapter(context)
        let findings = DoctorChecks.run(facts)
        let unsafe = findings.filter { $0.severity == .unsafe }.count
        if invocation[\.json] {
            let warnings = findings.filter { $0.severity == .warning }.count
            context.terminal.outRaw(try JSONOutput.document(Report(findings: findings, unsafe: unsafe, warnings: warnings)))
        } else {
            context.terminal.out(text(findings))
        }
        return unsafe > 0 ? .failure : .success
    }

    /// What the daemon says of its adapter, when it runs (a daemon that does not run is never started for this).
    static func daemonAdapter(_ context: CommandContext) async -> Result<DoctorFacts.DaemonAdapter, DoctorFacts.ProbeFailure> {
        do {
            let status = try await context.service().status()
            return .success(DoctorFacts.DaemonAdapter(name: status.adapter, address: status.adapterAddress,
                                                      powered: status.powered, choice: status.adapterChoice))
        } catch {
            return .failure(DoctorFacts.ProbeFailure("\(error)"))
        }
    }

    /// The findings as text: one block per finding, the severity and check first, then why and the fix.
    static func text(_ findings: [Finding], width: Int = 100) -> String {
        let indent = String(repeating: " ", count: 24)
        var lines: [String] = []
        var explained = Set<String>()   // one check's reason, said once for all its controllers
        for finding in findings {
            let head = finding.severity.rawValue.padding(8) + finding.check.rawValue.padding(16)
            lines += wrap(finding.summary, width: width - indent.count).enumerated().map { index, line in
                (index == 0 ? head : indent) + line
            }
            if !finding.detail.isEmpty, explained.insert(finding.detail).inserted {
                lines += wrap(finding.detail, width: width - indent.count).map { indent + $0 }
            }
            for (index, fix) in finding.fix.enumerated() {
                lines.append(indent + (index == 0 ? "fix: " : "     ") + fix)
            }
        }
        let unsafe = findings.filter { $0.severity == .unsafe }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        lines.append("")
        lines.append(unsafe == 0 && warnings == 0 ? "nothing to fix" :
            "\(unsafe) unsafe, \(warnings) warning\(warnings == 1 ? "" : "s")" +
            (unsafe > 0 ? ": a stranger can learn more than they should; fix the unsafe ones first" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

private extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
