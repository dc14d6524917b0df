import Foundation
import ScenarioSupport

// l2cap-vm-scenarios: the L2CAP layer on the real kernel and bluetoothd, hci1 (client) to hci0 (listener), inside
// the VM tier (scripts/vm/scenarios.list, line l2cap-layer). Docs/l2cap.md lists what each scenario proves.
//
//   l2cap-vm-scenarios [NAME...]   runs the named scenarios (default: all, in order) in one process; one
//                                  "PASS NAME (N ms)" / "FAIL NAME: reason" line each, measurements as
//                                  "MEASURE NAME key=value"; exit status 1 if any failed, 2 for an unknown name.

let names = Array(CommandLine.arguments.dropFirst())
if names.contains("--help") {
    print("usage: l2cap-vm-scenarios [NAME...]\nscenarios: " + L2CAPScenarios.all.map(\.name).joined(separator: " "))
    exit(0)
}
var selected: [Scenario] = []
for name in names {
    guard let scenario = L2CAPScenarios.all.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("l2cap-vm-scenarios: unknown scenario '\(name)'\n".utf8))
        exit(2)
    }
    selected.append(scenario)
}
if selected.isEmpty { selected = L2CAPScenarios.all }

let rig: Rig
do {
    rig = try await Rig.make()
} catch {
    print("FAIL setup: \(error)")
    exit(1)
}
var failed = 0
for scenario in selected {
    let report = Report(name: scenario.name)
    do {
        try await within(.seconds(scenario.limit), scenario.name) { try await scenario.run(rig, report) }
        print("PASS \(scenario.name) (\(report.elapsedMilliseconds) ms)")
    } catch {
        failed += 1
        print("FAIL \(scenario.name): \(error)")
    }
    fflush(nil)
}
await rig.tearDown()
exit(failed == 0 ? 0 : 1)
