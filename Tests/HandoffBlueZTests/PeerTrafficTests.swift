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

    /// Device leases on virtual time beside a transfer service that serves `busy`'s devices, and a count of the
    /// disconnections the leases asked for.
    private final class Fixture: Sendable {
        let clock = VirtualClock()
        /// The devices whose own transfer rides on the connection, as the transfer service would answer.
        let busy: Locked<Set<ObjectPath>>
        let leases: DeviceLeases
        private let count = Locked(0)

        init(busy devices: Set<ObjectPath>) {
            let busy = Locked(devices)
            let traffic = PeerTraffic()
            _ = traffic.add { busy.withLock { $0 }.contains($0) }
            self.busy = busy
            leases = DeviceLeases(clock: clock, traffic: traffic)
        }

        /// A lease on `path`, held.
        func lease(_ path: ObjectPath) async -> DeviceLease {
            await leases.acquire(path)
            return DeviceLease(path: path, leases: leases)
        }

        /// What a link passes to disconnect: counts.
        var disconnect: @Sendable () async -> Void { { [count] in count.withLock { $0 += 1 } } }
        var disconnections: Int { count.withLock { $0 } }

        /// Lets the leases' tasks run until `condition` holds (or a bounded number of turns passed).
        func settle(until condition: () -> Bool) async {
            for _ in 0..<2_000 where !condition() { await Task.yield() }
        }
    }

    @Test func aLingeringConnectionStaysUpWhileThePeersTransferRidesOnItThenGoes() async throws {
        let world = Fixture(busy: [device])
        let clock = world.clock
        await world.lease(device).releaseLingering(idle: .seconds(10), disconnect: world.disconnect)
        await world.settle { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        await world.settle { clock.sleeperCount == 1 && clock.nextDeadline == clock.now + .seconds(10) }
        #expect(world.disconnections == 0, "the peer's share would have been cut")
        #expect(!world.leases.isHeld(device), "the device is free for the next link of ours meanwhile")

        world.busy.withLock { $0 = [] }      // the peer's share ended
        clock.advance(by: .seconds(10))
        await world.settle { world.disconnections == 1 }
        #expect(world.disconnections == 1, "an idle connection is still disconnected in the end")
    }

    @Test func aLinkThatDoesNotLingerLeavesABusyConnectionToThePeer() async throws {
        let world = Fixture(busy: [device])
        let clock = world.clock
        let said = Locked<[String]>([])

        await world.lease(device).disconnectAndRelease(log: { text in said.withLock { $0.append(text) } },
                                                        disconnect: world.disconnect)
        #expect(world.disconnections == 0)
        await world.settle { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(2))
        await world.settle { !said.withLock { $0 }.isEmpty }
        #expect(said.withLock { $0 }.count == 1)
        #expect(said.withLock { $0 }.first?.contains("its own transfer rides on the connection") == true)

        // Another device's traffic changes nothing for this one.
        await world.lease(other).disconnectAndRelease(log: { _ in }, disconnect: world.disconnect)
        #expect(world.disconnections == 1, "a device with no transfer of its own is disconnected at once")
    }

    @Test func aLinkOfOursThatComesMeanwhileEndsTheWait() async throws {
        let world = Fixture(busy: [device])
        let clock = world.clock
        await world.lease(device).releaseLingering(idle: .seconds(10), disconnect: world.disconnect)
        await world.settle { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        await world.settle { clock.sleeperCount == 1 && clock.nextDeadline == clock.now + .seconds(10) }
        await world.leases.acquire(device)            // our next continue takes the connection
        clock.advance(by: .seconds(10))
        await world.settle { clock.sleeperCount == 0 }
        #expect(world.disconnections == 0, "a connection a link of ours holds is never disconnected under it")
        #expect(world.leases.isHeld(device))
    }

    @Test func theRadioClosingDisconnectsEvenABusyConnection() async throws {
        let world = Fixture(busy: [device])
        await world.lease(device).releaseLingering(idle: .seconds(10), disconnect: world.disconnect)
        await world.leases.flushLingering()
        #expect(world.disconnections == 1)
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
