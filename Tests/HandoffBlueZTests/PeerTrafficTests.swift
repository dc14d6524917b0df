@testable import HandoffBlueZ
import BlueZ
import DBus
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Closing a link of ours never cuts the peer's own transfer on the same LE connection (`PeerTraffic`): the two
/// machines connected to each other at once, and the laptop's share rides on the connection the desktop's continue
/// made. On virtual time.
struct PeerTrafficTests {
    private let device = ObjectPath(rawValue: "/org/bluez/hci0/dev_F0_F0_F0_F0_F0_01")!
    private let other = ObjectPath(rawValue: "/org/bluez/hci0/dev_F0_F0_F0_F0_F0_02")!

    /// The peer's transfer, as the transfer service would answer for it.
    private final class Busy: Sendable {
        let devices = Locked<Set<ObjectPath>>([])
    }

    /// Counts the disconnections a lease asked for.
    private final class Disconnections: Sendable {
        let count = Locked(0)
    }

    private func settle(_ clock: VirtualClock, until condition: () -> Bool) async {
        for _ in 0..<2_000 where !condition() { await Task.yield() }
    }

    @Test func aLingeringConnectionStaysUpWhileThePeersTransferRidesOnItThenGoes() async throws {
        let clock = VirtualClock()
        let busy = Busy()
        let traffic = PeerTraffic()
        _ = traffic.add { busy.devices.withLock { $0 }.contains($0) }
        let leases = DeviceLeases(clock: clock, traffic: traffic)
        let done = Disconnections()
        busy.devices.withLock { $0 = [device] }

        await leases.acquire(device)
        DeviceLease(path: device, leases: leases).releaseLingering(idle: .seconds(10)) {
            done.count.withLock { $0 += 1 }
        }
        await settle(clock) { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        await settle(clock) { clock.sleeperCount == 1 && clock.nextDeadline == clock.now + .seconds(10) }
        #expect(done.count.withLock { $0 } == 0, "the peer's share would have been cut")
        #expect(!leases.isHeld(device), "the device is free for the next link of ours meanwhile")

        busy.devices.withLock { $0 = [] }      // the peer's share ended
        clock.advance(by: .seconds(10))
        await settle(clock) { done.count.withLock { $0 } == 1 }
        #expect(done.count.withLock { $0 } == 1, "an idle connection is still disconnected in the end")
    }

    @Test func aLinkThatDoesNotLingerLeavesABusyConnectionToThePeer() async throws {
        let clock = VirtualClock()
        let busy = Busy()
        let traffic = PeerTraffic()
        _ = traffic.add { busy.devices.withLock { $0 }.contains($0) }
        let leases = DeviceLeases(clock: clock, traffic: traffic)
        let done = Disconnections()
        busy.devices.withLock { $0 = [device] }
        let said = Locked<[String]>([])

        await leases.acquire(device)
        await DeviceLease(path: device, leases: leases).disconnectAndRelease(log: { text in said.withLock { $0.append(text) } }) {
            done.count.withLock { $0 += 1 }
        }
        #expect(done.count.withLock { $0 } == 0)
        await settle(clock) { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(2))
        await settle(clock) { !said.withLock { $0 }.isEmpty }
        #expect(said.withLock { $0 }.count == 1)
        #expect(said.withLock { $0 }.first?.contains("its own transfer rides on the connection") == true)

        // Another device's traffic changes nothing for this one.
        await leases.acquire(other)
        await DeviceLease(path: other, leases: leases).disconnectAndRelease(log: { _ in }) {
            done.count.withLock { $0 += 1 }
        }
        #expect(done.count.withLock { $0 } == 1, "a device with no transfer of its own is disconnected at once")
    }

    @Test func aLinkOfOursThatComesMeanwhileEndsTheWait() async throws {
        let clock = VirtualClock()
        let traffic = PeerTraffic()
        _ = traffic.add { _ in true }
        let leases = DeviceLeases(clock: clock, traffic: traffic)
        let done = Disconnections()

        await leases.acquire(device)
        DeviceLease(path: device, leases: leases).releaseLingering(idle: .seconds(10)) {
            done.count.withLock { $0 += 1 }
        }
        await settle(clock) { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        await settle(clock) { clock.sleeperCount == 1 && clock.nextDeadline == clock.now + .seconds(10) }
        await leases.acquire(device)            // our next continue takes the connection
        clock.advance(by: .seconds(10))
        await settle(clock) { clock.sleeperCount == 0 }
        #expect(done.count.withLock { $0 } == 0, "a connection a link of ours holds is never disconnected under it")
        #expect(leases.isHeld(device))
    }

    @Test func theRadioClosingDisconnectsEvenABusyConnection() async throws {
        let clock = VirtualClock()
        let traffic = PeerTraffic()
        _ = traffic.add { _ in true }
        let leases = DeviceLeases(clock: clock, traffic: traffic)
        let done = Disconnections()
        await leases.acquire(device)
        DeviceLease(path: device, leases: leases).releaseLingering(idle: .seconds(10)) {
            done.count.withLock { $0 += 1 }
        }
        await leases.flushLingering()
        #expect(done.count.withLock { $0 } == 1)
    }

    @Test func theServiceAnswersForOpenChannelsAndRecentWritesOfTheDevice() {
        let clock = VirtualClock()
        let channels = ChannelTable<Int>()
        let centrals = CentralTable()
        let adapter = ObjectPath(rawValue: "/org/bluez/hci0")!
        func busy(_ path: ObjectPath) -> Bool {
            BlueZTransferService.carriesTraffic(from: path, channels: channels, centrals: centrals, adapter: adapter,
                                                now: clock.now)
        }
        #expect(!busy(device))
        _ = channels.add(1, as: PeerAddress("l2cap:F0:F0:F0:F0:F0:01#7"), limit: 16)
        #expect(busy(device), "an open channel from the device")
        #expect(!busy(other))
        _ = channels.remove(PeerAddress("l2cap:F0:F0:F0:F0:F0:01#7"))
        #expect(!busy(device))
        _ = centrals.note(PeerAddress(other.rawValue), mtu: 247, fallback: 23, at: clock.now)
        #expect(busy(other), "a GATT write just now")
        clock.advance(by: PeerTraffic.quietAfterWrite)
        #expect(!busy(other), "quiet for \(PeerTraffic.quietAfterWrite)")
    }
}
