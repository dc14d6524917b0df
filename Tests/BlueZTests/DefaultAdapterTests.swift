@testable import BlueZ
import Testing

/// handoffd without `--adapter` uses BlueZ's default adapter: the lowest-numbered, as bluetoothctl's `[default]`.
@Suite struct DefaultAdapterTests {
    @Test func theLowestNumberedAdapterIsTheDefault() {
        #expect(BlueZ.defaultAdapterName(among: ["hci1", "hci0"]) == "hci0")
        #expect(BlueZ.defaultAdapterName(among: ["hci10", "hci9", "hci2"]) == "hci2")   // by number, not by text
        #expect(BlueZ.defaultAdapterName(among: ["hci3"]) == "hci3")   // a dongle that came back under another index
    }

    @Test func namesThatAreNotHciNComeAfterAndByName() {
        #expect(BlueZ.defaultAdapterName(among: ["usb-b", "hci4", "usb-a"]) == "hci4")
        #expect(BlueZ.defaultAdapterName(among: ["usb-b", "usb-a"]) == "usb-a")
        #expect(BlueZ.defaultAdapterName(among: []) == nil)
    }
}
