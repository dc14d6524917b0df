import Foundation
import ScenarioSupport

// bluez-vm-scenarios: real-BlueZ scenarios for the VM tier (scripts/vm-test.sh runs it inside the VM).
//
//   bluez-vm-scenarios NAME...     runs the named scenarios in order; one "PASS NAME" / "FAIL NAME: reason"
//                                  line each on stdout, measurements as "MEASURE NAME key=value" lines;
//                                  exit status 1 if any failed, 2 for an unknown name.

let scenarios: [Scenario] = [
    AdvertScenarios.seen, AdvertScenarios.errors,
    GattScenarios.transfer(expectMTU: 517), GattScenarios.transfer(expectMTU: 48),
    ResilienceScenario.restart,
]

let names = Array(CommandLine.arguments.dropFirst())
if names.isEmpty || names.contains("--help") {
    print("usage: bluez-vm-scenarios NAME...\nscenarios: " + scenarios.map(\.name).joined(separator: " "))
    exit(names.isEmpty ? 2 : 0)
}
var selected: [Scenario] = []
for name in names {
    guard let scenario = scenarios.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("bluez-vm-scenarios: unknown scenario '\(name)'\n".utf8))
        exit(2)
    }
    selected.append(scenario)
}

var failed = 0
for scenario in selected {
    let report = Report(name: scenario.name)
    do {
        try await scenario.run(report)
        print("PASS \(scenario.name) (\(report.elapsedMilliseconds) ms)")
    } catch {
        failed += 1
        print("FAIL \(scenario.name): \(error)")
    }
    fflush(nil)
}
exit(failed == 0 ? 0 : 1)
