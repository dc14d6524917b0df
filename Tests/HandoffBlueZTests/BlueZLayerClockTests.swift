import BlueZ
import BlueZTestSupport
import Foundation
import HandoffShared
import HandoffTesting
import Testing

/// The BlueZ layer reads the clock it is given (`BlueZ.connect(clock:)`, which the radio passes its own): a wait on
/// the mirror times out when that clock says so, not by the wall clock, and a registration is stamped with it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BlueZLayerClockTests {
    @Test func aWaitOnTheMirrorTimesOutOnTheInjectedClock() async throws {
        let zoo = try BluezooFixture()
        defer { zoo.stop() }
        let clock = VirtualClock()
        let bluez = try await BlueZ.connect(bus: .address(zoo.address), clock: clock)
        let waiting = Task {
            try await bluez.wait(timeout: .seconds(30), "a condition that never holds") { _ in false }
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.nextDeadline == HandoffInstant(offset: .seconds(30)))
        clock.advance(by: .seconds(30))
        await #expect(throws: BlueZError.self) { try await waiting.value }
        #expect(clock.sleeperCount == 0)
        await bluez.close()
    }

    @Test func aRegistrationIsStampedWithTheInjectedClock() async throws {
        let zoo = try BluezooFixture()
        defer { zoo.stop() }
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        let bluez = try await BlueZ.connect(bus: .address(zoo.address), clock: clock)
        let hci0 = try await bluez.adapter(named: "hci0")
        try await hci0.setPowered(true)
        let registration = try await bluez.register(LEAdvertisement(manufacturerData: [0xFFFF: Data([1])]), on: hci0)
        #expect(await bluez.registrationState(registration.path)?.registeredAt == HandoffInstant(offset: .seconds(5)))
        await registration.cancel()
        await bluez.close()
    }
}
