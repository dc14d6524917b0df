import Foundation
@testable import HandoffKit
import Testing

/// The receiving side's account of what trusted devices offer, driven with beacons alone: what is listed, what is
/// announced, and what a replay changes (nothing).
@Suite struct ActivityLedgerTests {
    let device = TrustedDevice(id: UUID(), name: "laptop", publicKey: Data(count: 32), pairedAt: Date())
    let start = Date(timeIntervalSince1970: 1_000_000)

    func beacon(_ sequence: UInt32, nonce: UInt8 = 1) -> Beacon {
        Beacon(device: device.id, typeTag: [1, 2, 3, 4], sequence: sequence, nonce: [UInt8](repeating: nonce, count: 7))
    }

    func event(_ peer: String, rssi: Int? = nil) -> ScanEvent {
        ScanEvent(peer: PeerAddress(peer), beacon: [], rssi: rssi)
    }

    @Test func aNewActivityAndEachNewVersionAreAnnouncedOnce() {
        var ledger = ActivityLedger()
        let first = ledger.heard(beacon(5), of: device, activityType: "org.handoff.note", in: event("a"), at: start)
        #expect(first?.sequence == 5)
        #expect(first?.activityType == "org.handoff.note")
        #expect(ledger.heard(beacon(5), of: device, activityType: "org.handoff.note", in: event("a"), at: start) == nil)
        let second = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start + 1)
        #expect(second?.sequence == 6)
        #expect(ledger.listed.map(\.sequence) == [6])
    }

    /// The current sequence from other addresses (a rotation or a replay) is only remembered: the 4 newest distinct
    /// addresses, newest first, for that sequence only; an older one is not; a new sequence forgets them all.
    @Test func theCurrentBeaconFromElsewhereIsOnlyACandidate() {
        var ledger = ActivityLedger()
        guard let remote = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start) else {
            Issue.record("the first beacon listed nothing")
            return
        }
        _ = ledger.heard(beacon(5), of: device, activityType: nil, in: event("old"), at: start)
        for peer in ["b", "c", "d", "b", "e", "f"] {
            #expect(ledger.heard(beacon(6), of: device, activityType: nil, in: event(peer), at: start) == nil)
        }
        #expect(ledger.candidates(for: remote) == ["f", "e", "b", "d"].map { PeerAddress($0) })
        #expect(ledger.listed.map(\.peer) == [PeerAddress("a")])
        #expect(ledger.address(of: remote) == PeerAddress("a"))
        _ = ledger.heard(beacon(7), of: device, activityType: nil, in: event("a"), at: start)
        #expect(ledger.candidates(for: remote).isEmpty)
        #expect(ledger.candidates(for: ledger.listed[0]).isEmpty)
    }

    /// Only a proof (an authenticated transfer, `HandoffEngine.followingRotation`) moves the device to a candidate,
    /// and only for the version it proved itself with: its re-seals from there then count as repeats.
    @Test func aProvenCandidateBecomesTheDevicesAddress() {
        var ledger = ActivityLedger()
        guard let remote = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start) else {
            Issue.record("the first beacon listed nothing")
            return
        }
        _ = ledger.heard(beacon(6), of: device, activityType: nil, in: event("b"), at: start)
        ledger.proved(device.id, at: PeerAddress("b"), sequence: 5)
        #expect(ledger.address(of: remote) == PeerAddress("a"), "a proof for another version moved the device")
        ledger.proved(device.id, at: PeerAddress("b"), sequence: 6)
        #expect(ledger.address(of: remote) == PeerAddress("b"))
        #expect(ledger.listed.map(\.peer) == [PeerAddress("b")])
        #expect(ledger.candidates(for: remote).isEmpty)
        _ = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start)
        #expect(ledger.candidates(for: remote) == [PeerAddress("a")])
        #expect(ledger.listed.map(\.peer) == [PeerAddress("b")])
    }

    @Test func aReplayedOlderOrRepeatedBeaconMovesNothing() {
        var ledger = ActivityLedger()
        _ = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        _ = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start)
        // A stranger replays the older version, then the current one, from its own address.
        #expect(ledger.heard(beacon(5), of: device, activityType: nil, in: event("stranger"), at: start) == nil)
        #expect(ledger.heard(beacon(6), of: device, activityType: nil, in: event("stranger"), at: start) == nil)
        #expect(ledger.listed.map(\.peer) == [PeerAddress("a")])
        #expect(ledger.listed.map(\.sequence) == [6])
    }

    @Test func aRotationOfTheListedVersionRefreshesItWithoutAnAnnouncement() {
        var ledger = ActivityLedger()
        _ = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        #expect(ledger.heard(beacon(5, nonce: 2), of: device, activityType: nil, in: event("a", rssi: -40),
                             at: start + 10) == nil)
        #expect(ledger.listed.map(\.peer) == [PeerAddress("a")])
        #expect(ledger.listed.map(\.rssi) == [-40])
    }

    /// Only a new sequence moves a device: the current one re-sealed or replayed from another address does not.
    @Test func theCurrentSequenceFromAnotherAddressMovesNothing() {
        var ledger = ActivityLedger()
        _ = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        #expect(ledger.heard(beacon(5, nonce: 2), of: device, activityType: nil, in: event("b", rssi: -40),
                             at: start + 10) == nil)
        #expect(ledger.listed.map(\.peer) == [PeerAddress("a")])
        let moved = ledger.heard(beacon(6), of: device, activityType: nil, in: event("b"), at: start + 20)
        #expect(moved?.peer == PeerAddress("b"))
    }

    @Test func anActivitySetAsideComesBackWhenItsBeaconIsHeardAgain() {
        var ledger = ActivityLedger()
        let remote = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        #expect(remote != nil)
        if let remote { ledger.setAside(remote) }
        #expect(ledger.listed.isEmpty)
        // Replayed from another address: still aside.
        #expect(ledger.heard(beacon(5), of: device, activityType: nil, in: event("b"), at: start + 20) == nil)
        #expect(ledger.listed.isEmpty)
        // Heard again exactly as before (the same nonce) from its address: listed and announced again.
        let again = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start + 30)
        #expect(again?.sequence == 5)
        #expect(again?.peer == PeerAddress("a"))
        #expect(again?.seenAt == start + 30)
        #expect(ledger.listed.count == 1)
    }

    @Test func setAsideOrContinuedLeaveANewerVersionListed() throws {
        var ledger = ActivityLedger()
        let heardOld = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        let old = try #require(heardOld)
        _ = ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start)
        ledger.setAside(old)
        ledger.continued(old)
        #expect(ledger.listed.map(\.sequence) == [6])
    }

    @Test func aForgottenActivityReturnsOnlyAsANewerVersion() throws {
        var ledger = ActivityLedger()
        let heardRemote = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        let remote = try #require(heardRemote)
        ledger.setAside(remote)
        ledger.forget(remote)
        #expect(ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start) == nil)
        #expect(ledger.listed.isEmpty)
        #expect(ledger.heard(beacon(6), of: device, activityType: nil, in: event("a"), at: start)?.sequence == 6)
    }

    @Test func aDeviceNoLongerTrustedIsDroppedListedOrSetAside() throws {
        var ledger = ActivityLedger()
        let heardRemote = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start)
        let remote = try #require(heardRemote)
        ledger.setAside(remote)
        ledger.keep(only: [])
        // Were it trusted again, its set-aside version would not come back by itself: it is a new device to us.
        let heard = ledger.heard(beacon(5), of: device, activityType: nil, in: event("a"), at: start + 1)
        #expect(heard?.seenAt == start + 1)
        #expect(ledger.listed.count == 1)
    }
}
