import FoundationEssentials

/// The receiving side's account of what trusted devices offer, without I/O: it is told of every opened beacon of a
/// trusted device and of what the user did, and says which availability to announce. It holds, per device, the
/// newest sequence heard, the address it came from and its nonces (so a replayed beacon is dropped), the listed
/// activity, and one set aside after a failed continue until its beacon is heard again.
///
/// A beacon moves a device to another address only with a new sequence (Docs/protocol.md, "The gate"). A beacon can
/// be recorded and sent again by anyone, from any address; what a replayer cannot make is a higher sequence. So the
/// current sequence heard from another address moves, lists and refreshes nothing; that address is only kept as a
/// candidate (`AddressCandidates`: the device may have rotated its address), and becomes the device's address only
/// when the device proves itself there (`proved(_:at:sequence:)`, after an authenticated transfer).
struct ActivityLedger: Sendable {
    /// Replay state per device: the highest sequence seen and the nonces seen with it.
    private struct Seen: Sendable {
        var sequence: UInt32
        /// Where that sequence was first heard: the only address its repeats and rotations count from.
        var peer: PeerAddress
        var nonces: Set<[UInt8]>
        /// Other addresses that sequence was heard from.
        var candidates: AddressCandidates
    }

    private var seen: [UUID: Seen] = [:]
    private var available: [UUID: RemoteActivity] = [:]
    private var setAside: [UUID: RemoteActivity] = [:]

    /// The listed activities, newest sighting first.
    var listed: [RemoteActivity] {
        available.values.sorted { $0.seenAt > $1.seenAt }
    }

    /// `beacon`, of the trusted `device`, was heard in `event` at `now`. Returns the availability to announce: a new
    /// activity or a new version of one, or one set aside that is heard again from its address. An older sequence,
    /// a repeated beacon and the current sequence from another address (replays) announce nothing and move
    /// nothing; a new rotation of the listed version from its address refreshes its signal strength.
    mutating func heard(_ beacon: Beacon, of device: TrustedDevice, activityType: String?, in event: ScanEvent,
                        at now: Date) -> RemoteActivity? {
        let last = seen[beacon.device].map { (sequence: $0.sequence, peer: $0.peer) }
        switch Gate.beaconMoves(sequence: beacon.sequence, from: event.peer, after: last) {
        case .replay:
            // The device under a new address, or a replayer: only a candidate, tried when the address fails.
            if var state = seen[beacon.device] {
                state.candidates.heard(sequence: beacon.sequence, from: event.peer, current: state.peer)
                seen[beacon.device] = state
            }
            return nil
        case .repeat:
            guard var state = seen[beacon.device] else { return nil }
            let fresh = state.nonces.insert(beacon.nonce).inserted          // a rotation: the same activity
            seen[beacon.device] = state
            if var remote = setAside.removeValue(forKey: beacon.device) {   // still there after a failure
                remote.rssi = event.rssi
                remote.seenAt = now
                available[beacon.device] = remote
                return remote
            }
            guard fresh else { return nil }                                   // the same beacon repeated
            available[beacon.device]?.rssi = event.rssi
            return nil
        case .news:
            break
        }
        seen[beacon.device] = Seen(sequence: beacon.sequence, peer: event.peer, nonces: [beacon.nonce],
                                   candidates: AddressCandidates(sequence: beacon.sequence))
        setAside[beacon.device] = nil
        let remote = RemoteActivity(device: device, activityType: activityType, sequence: beacon.sequence,
                                    peer: event.peer, rssi: event.rssi, seenAt: now, typeTag: beacon.typeTag)
        available[beacon.device] = remote
        return remote
    }

    /// Where to connect for `remote`: the address its device proved itself at, when that happened for this version
    /// since it was listed; else the address it was listed with.
    func address(of remote: RemoteActivity) -> PeerAddress {
        guard let state = seen[remote.device.id], state.sequence == remote.sequence else { return remote.peer }
        return state.peer
    }

    /// The other addresses `remote`'s version was heard from, newest first (`AddressCandidates`).
    func candidates(for remote: RemoteActivity) -> [PeerAddress] {
        seen[remote.device.id]?.candidates.addresses(for: remote.sequence) ?? []
    }

    /// The device proved itself at `peer` (it completed an authenticated transfer there) while advertising
    /// `sequence`: if that is still its current sequence, `peer` is its address, for its listing and for the
    /// repeats and rotations that count from there.
    mutating func proved(_ device: UUID, at peer: PeerAddress, sequence: UInt32) {
        guard var state = seen[device], state.sequence == sequence else { return }
        state.peer = peer
        state.candidates.proven(peer)
        seen[device] = state
        if available[device]?.sequence == sequence { available[device]?.peer = peer }
        if setAside[device]?.sequence == sequence { setAside[device]?.peer = peer }
    }

    /// `remote` was continued: that version is used up. A newer one the device offered meanwhile stays listed.
    mutating func continued(_ remote: RemoteActivity) {
        if available[remote.device.id]?.sequence == remote.sequence { available[remote.device.id] = nil }
    }

    /// Forgets the device's availability, listed or set aside: only a newer version is listed again.
    mutating func forget(_ remote: RemoteActivity) {
        available[remote.device.id] = nil
        setAside[remote.device.id] = nil
    }

    /// Hides `remote` until its beacon is heard again; nothing if another version is listed. Returns whether it
    /// was set aside.
    @discardableResult
    mutating func setAside(_ remote: RemoteActivity) -> Bool {
        guard let listed = available[remote.device.id], listed.sequence == remote.sequence else { return false }
        available[remote.device.id] = nil
        setAside[remote.device.id] = listed
        return true
    }

    /// Drops everything of devices no longer in `trusted`.
    mutating func keep(only trusted: Set<UUID>) {
        available = available.filter { trusted.contains($0.key) }
        seen = seen.filter { trusted.contains($0.key) }
        setAside = setAside.filter { trusted.contains($0.key) }
    }
}
