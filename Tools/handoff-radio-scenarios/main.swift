// handoff-radio-scenarios: tier 2 of HandoffBlueZ. Inside the VM (scripts/vm-test.sh), two HandoffEngines run on
// hci0 and hci1 over the real bluetoothd, and each scenario prints one line: PASS NAME detail / FAIL NAME reason.
//
//   handoff-radio-scenarios                 every scenario, in order
//   handoff-radio-scenarios NAME...         only these (scripts/vm/scenarios.list runs one per line)
//   handoff-radio-scenarios --list          the names
//
// Exit status: 0 when every scenario passed, 1 otherwise, 2 for an unknown name.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--list"] {
    for scenario in Scenario.all { say(scenario.name) }
    exit(0)
}
let unknown = arguments.filter { name in !Scenario.all.contains { $0.name == name } }
guard unknown.isEmpty else {
    let names = unknown.joined(separator: ", ")
    FileHandle.standardError.write(Data("handoff-radio-scenarios: unknown scenario \(names); try --list\n".utf8))
    exit(2)
}
let chosen = arguments.isEmpty ? Scenario.all : Scenario.all.filter { arguments.contains($0.name) }
var failures = 0
for scenario in chosen {
    let started = ContinuousClock.now
    do {
        let detail = try await within(scenario.limit, "end of \(scenario.name)", scenario.run)
        say("PASS \(scenario.name) (\(seconds(ContinuousClock.now - started)) s): \(detail)")
    } catch {
        failures += 1
        say("FAIL \(scenario.name) (\(seconds(ContinuousClock.now - started)) s): \(error)")
    }
    try? await Task.sleep(for: .seconds(1))      // let the devices' shutdown tasks finish
}
exit(failures == 0 ? 0 : 1)
