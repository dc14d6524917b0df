import HandoffDoctor
import Testing
@testable import handoff

/// How `handoff doctor` prints its findings (the checks themselves are in HandoffDoctorTests).
@Suite struct DoctorCommandTests {
    @Test func eachFindingShowsItsSeverityWhyAndFix() {
        let text = DoctorCommand.text([
            Finding(.privacy, .unsafe, "hci0 advertises from its public address 00:AA:01:00:00:00",
                    detail: "Anyone can follow it.",
                    fix: ["in /etc/bluetooth/main.conf, section [General]: Privacy = device",
                          "sudo systemctl restart bluetooth"]),
            Finding(.bluetoothd, .ok, "bluetoothd 5.66 (5.66 or newer)"),
        ])
        #expect(text == """
            unsafe  privacy         hci0 advertises from its public address 00:AA:01:00:00:00
                                    Anyone can follow it.
                                    fix: in /etc/bluetooth/main.conf, section [General]: Privacy = device
                                         sudo systemctl restart bluetooth
            ok      bluetoothd      bluetoothd 5.66 (5.66 or newer)

            1 unsafe, 0 warnings: a stranger can learn more than they should; fix the unsafe ones first

            """)
    }

    @Test func aReasonSharedByTwoControllersIsSaidOnce() {
        let text = DoctorCommand.text([
            Finding(.privacy, .unsafe, "hci0 public", detail: "Anyone can follow it.", fix: ["fix"]),
            Finding(.privacy, .unsafe, "hci1 public", detail: "Anyone can follow it.", fix: ["fix"]),
        ])
        #expect(text.components(separatedBy: "Anyone can follow it.").count == 2)
        #expect(text.components(separatedBy: "fix: fix").count == 3)
    }

    @Test func nothingToFix() {
        #expect(DoctorCommand.text([Finding(.leCoC, .ok, "offered")]).hasSuffix("\nnothing to fix\n"))
    }

    @Test func longSummariesWrapUnderTheirColumn() {
        let text = DoctorCommand.text([Finding(.adapterName, .info, String(repeating: "word ", count: 40))], width: 60)
        let lines = text.split(separator: "\n")
        #expect(lines.count > 3)
        #expect(lines.dropFirst().prefix(2).allSatisfy { $0.hasPrefix(String(repeating: " ", count: 24) + "word") })
        #expect(lines.allSatisfy { $0.count <= 60 })
    }
}
