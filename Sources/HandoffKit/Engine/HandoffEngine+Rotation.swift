import FoundationEssentials

extension HandoffEngine {
    /// One attempt at one address: its result, and whether the peer proved it holds our keys before it ended
    /// (an authenticated frame only the device can make), whatever the result.
    struct Attempt<Success, Failure: Error> {
        var result: Result<Success, Failure>
        var proven: Bool
    }

    /// Runs `attempt` at `listed`, the device's address. When it fails before the peer proved itself, in a way a
    /// move explains (`AddressCandidates.worthFollowing`), runs it at each of `candidates()` (asked then, newest
    /// first) until one proves itself. Returns the first proven attempt's outcome (or the failure at `listed` when
    /// none proved itself), and the address that proved itself when it is not `listed`: the only way a device moves
    /// without a new sequence. A candidate that fails unproven (a stranger's refusal, silence) costs that attempt.
    func followingRotation<Success, Failure: Error>(
        from listed: PeerAddress, candidates: () -> [PeerAddress], isFollowable: (Failure) -> Bool,
        _ attempt: (PeerAddress) async -> Attempt<Success, Failure>
    ) async -> (result: Result<Success, Failure>, movedTo: PeerAddress?) {
        let first = await attempt(listed)
        guard !first.proven, case .failure(let error) = first.result, isFollowable(error) else {
            return (first.result, nil)
        }
        for peer in candidates() where peer != listed {
            let next = await attempt(peer)
            if next.proven { return (next.result, peer) }
        }
        return (first.result, nil)
    }

    /// The trusted device `device` proved itself at `peer` while advertising `sequence`: it is the device's address
    /// for its listing (`ActivityLedger`) and its pushes (`share.sightings`) from now on.
    func deviceProved(_ device: UUID, at peer: PeerAddress, sequence: UInt32) {
        ledger.proved(device, at: peer, sequence: sequence)
        guard var sighting = share.sightings[device], sighting.sequence == sequence else { return }
        sighting.peer = peer
        sighting.candidates.proven(peer)
        share.sightings[device] = sighting
    }
}
