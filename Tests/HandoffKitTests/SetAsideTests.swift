import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// An activity whose continue failed for want of a connection comes back once its source is heard again, so the
/// user can try again; one the user forgot does not.
struct SetAsideTests {
    /// The source's beacon heard once more by the receiver, exactly as it is on the air (no new version, no
    /// rotation): what a scan reports again and again while the source stays in range.
    private func hearAgain(_ source: SimulatedDevice, on ether: InMemoryEther) async throws {
        let beacon = try #require(await ether.currentAdvertisement(of: source.radio.address))
        await ether.inject(beacon: beacon, from: source.radio.address)
    }

    @Test func aSourceStillInRangeAfterAFailedConnectionIsListedAndContinuedAgain() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        activity.title = "Groceries"
        let remote = try await offer(activity, from: source, to: receiver)

        await ether.setReachable(source.radio.address, false)
        let failed = await receiver.engine.continueActivity(remote)
        #expect(failed.error?.code == .connectionUnavailable)
        await receiver.engine.setAside(remote)
        #expect(await receiver.engine.availableActivities().isEmpty)

        await ether.setReachable(source.radio.address, true)
        let updates = await receiver.engine.availabilityUpdates()
        try await hearAgain(source, on: ether)
        let back = try await first(updates)
        #expect(back.id == remote.id && back.sequence == remote.sequence)
        #expect(await receiver.engine.availableActivities().map(\.sequence) == [remote.sequence])
        let continued = await receiver.engine.continueActivity(back)
        #expect(continued.activity?.title == "Groceries")
    }

    @Test func aForgottenActivityStaysHiddenWhenItsBeaconIsHeardAgain() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        await receiver.engine.forget(remote)
        try await hearAgain(source, on: ether)
        try await quiet(ether)
        #expect(await receiver.engine.availableActivities().isEmpty)
    }

    @Test func settingAsideAnOlderVersionLeavesTheNewerOneListed() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        let older = try await offer(activity, from: source, to: receiver)
        let updates = await receiver.engine.availabilityUpdates()
        activity.title = "v2"   // an update advertises a new version
        let newer = try await first(updates)
        #expect(newer.sequence > older.sequence)
        await receiver.engine.setAside(older)
        #expect(await receiver.engine.availableActivities().map(\.sequence) == [newer.sequence])
    }

    /// A radio such as BlueZ's reports a repeated advertisement only when asked; setting an activity aside asks it
    /// for the source's next one, and only when something was set aside.
    @Test func settingAsideAsksTheRadioForTheSourcesNextAdvertisement() async throws {
        let ether = InMemoryEther()
        let devices = try await HandoffFixtures.devices(["mac", "pc"], on: ether, declaredTypes: [noteType])
        await devices[1].engine.stop()
        let radio = AskedRadio(ether.makeRadio(address: "sim:pc2"))
        let engine = try HandoffEngine(configuration: devices[1].engine.configuration, trust: devices[1].store,
                                       radio: radio, delegate: devices[1].delegate)
        try await engine.start()
        defer { Task { await engine.stop() } }
        let updates = await engine.availabilityUpdates()
        let activity = UserActivity(activityType: noteType)
        try await activity.becomeCurrent(in: devices[0].engine)
        let remote = try await first(updates)

        await engine.setAside(remote)
        #expect(radio.asked == [remote.peer])
        await engine.setAside(remote)            // already aside: nothing more to ask
        await engine.forget(remote)
        await engine.setAside(remote)            // forgotten: nothing to set aside
        #expect(radio.asked == [remote.peer])
    }
}

/// A radio that remembers whose next advertisement it was asked to report.
final class AskedRadio: RadioDecorator {
    let base: any Radio
    private let peers = Locked<[PeerAddress]>([])
    var asked: [PeerAddress] { peers.withLock { $0 } }

    init(_ base: any Radio) { self.base = base }

    func reportNextAdvertisement(of peer: PeerAddress) async {
        peers.withLock { $0.append(peer) }
        await base.reportNextAdvertisement(of: peer)
    }
}
