import FoundationEssentials

/// The gate between the radio and the engine's state (Docs/protocol.md, "The gate"). Each rule an unauthenticated
/// party must not get past is decided here, in one function, and every inbound frame or beacon it concerns passes
/// that function before any state machine sees it:
///
/// * `admitContinue(_:keys:request:)` and `admitPush(_:keys:push:)`: what a client does with a notification.
///   Undecodable frames and every ERROR not bound to this session are dropped, so nothing a stranger makes a source
///   broadcast (GATT notifications reach every subscriber) ends, moves or alters a session.
/// * `provesRequest(_:nonce:challenge:keys:)` and `provesPush(_:transferID:challenge:keys:)`: a source saves and
///   seals an activity, and a push session opens or moves, only on a proof that answers a fresh challenge; a
///   recorded REQUEST, PUSH or proof replayed later proves nothing.
/// * `beaconMoves(sequence:from:after:)`: only a higher sequence moves a device to another address. The current
///   beacon from elsewhere is a replay or the device after an address rotation (LE privacy changes the address, not
///   the sequence), which a beacon cannot tell apart: that address is only a candidate (`AddressCandidates`), tried
///   when the device's own address fails. A rotation is followed at that connection, once the peer there proves it
///   holds the keys (`HandoffEngine.followingRotation`); a replayer can cost a failed attempt and its time, and
///   neither receives anything it can open nor moves anything.
/// * Rekeys: `TrustStore.applyRekey(_:)` (next epoch only, never wrapping, revoking neither end).
/// * `Writer`: a central that writes what no client of ours writes loses its link. A stranger holding a link
///   costs the source more than its writes: a Linux 6.1 controller that is a peripheral to it does not connect
///   out, and while it holds the link the source may not advertise.
enum Gate {
    // MARK: - Writers that prove nothing

    /// What becomes of the central that wrote a frame, once the frame was handled (`HandoffEngine.handle(_:)`).
    enum Writer: Equatable {
        /// It keeps its link: the frame was one a client of ours writes, whether or not it got anywhere (a
        /// REQUEST or PUSH with a MAC we check, a PROOF for a challenge since replaced, a repeated DONE, a share's
        /// DATA for a session that moved on, a rekey fragment, a pairing message in pairing mode).
        case kept
        /// Its link is dropped: what it wrote no client of ours writes. An undecodable frame; a REQUEST or PUSH
        /// that no key of ours made; a FETCH of a transfer that does not exist; a frame only a source or receiver
        /// sends (OPEN, DATA, ERROR, CHALLENGE, ACCEPT, ...); a pairing message outside pairing mode. The refusal
        /// is answered first (a device that unpaired us learns why), and the link goes a moment later.
        case dropped
    }


    // MARK: - Binding an ERROR to a session

    /// The tag of a refusal given without a key both sides hold (a stranger's REQUEST or PUSH, a frame of another
    /// version): the digest of the very frame refused. A client accepts it only for a frame it wrote itself; a
    /// stranger who writes that same frame gets the answer that frame gets, so it learns and changes nothing.
    static func echoTag(of refused: [UInt8]) -> [UInt8] {
        HashLabel.refused.digest(refused, length: TransferFrame.macLength)
    }

    /// The frame a continue's client may act on, or nil. An ERROR passes only when its tag is the group's error MAC
    /// (the source authenticated what it answers) or the digest of `request`, the REQUEST this client wrote (the
    /// source refused it without a key we share: it unpaired us). The zero context never passes: it answers a frame
    /// nobody can be told apart by.
    static func admitContinue(_ bytes: [UInt8], keys: GroupKeys, request: [UInt8]) -> TransferFrame? {
        guard let frame = try? TransferFrame.decode(bytes) else { return nil }
        guard case .error(let context, let code, let tag, let message) = frame else { return frame }
        guard context != .zero else { return nil }
        let bound = Sodium.constantTimeEqual(tag, keys.errorTag(context: context, code: code, message: message))
            || Sodium.constantTimeEqual(tag, echoTag(of: request))
        return bound ? frame : nil
    }

    /// The frame a push's sender may act on, or nil: as `admitContinue`, with the pairwise push key, and `written`
    /// the PUSH and PROOF frames this sender wrote.
    static func admitPush(_ bytes: [UInt8], keys: ShareKeys, written: [[UInt8]]) -> ShareFrame? {
        guard ShareFrame.claims(bytes), let frame = try? ShareFrame.decode(bytes) else { return nil }
        guard case .error(let id, let code, let tag, let message) = frame else { return frame }
        guard id != .zero else { return nil }
        let bound = Sodium.constantTimeEqual(tag, keys.errorTag(transferID: id, code: code, message: message))
            || written.contains { Sodium.constantTimeEqual(tag, echoTag(of: $0)) }
        return bound ? frame : nil
    }

    // MARK: - Freshness

    /// Whether `proof` answers `challenge`, the source's fresh random challenge to this central for request `nonce`.
    static func provesRequest(_ proof: [UInt8], nonce: Nonce, challenge: [UInt8], keys: GroupKeys) -> Bool {
        Sodium.constantTimeEqual(proof, keys.proofMAC(nonce: nonce, challenge: challenge))
    }

    /// Whether `proof` answers `challenge`, the receiver's fresh random challenge to this central for this push.
    static func provesPush(_ proof: [UInt8], transferID: TransferID, challenge: [UInt8], keys: ShareKeys) -> Bool {
        Sodium.constantTimeEqual(proof, keys.proofMAC(transferID: transferID, challenge: challenge))
    }

    /// Whether a trusted device's beacon of `sequence`, heard from `peer`, may move what we know of it (its address,
    /// its listing) after `last` (the highest sequence heard and where it was first heard). A higher sequence is
    /// news; the same one from the same address is a repeat or a re-seal; anything else is a replay. A real device
    /// also changes its address under LE privacy with its sequence unchanged: the current sequence from another
    /// address is a `.replay` all the same, and its address only a candidate (`AddressCandidates`).
    static func beaconMoves(sequence: UInt32, from peer: PeerAddress,
                            after last: (sequence: UInt32, peer: PeerAddress)?) -> BeaconVerdict {
        guard let last else { return .news }
        if sequence > last.sequence { return .news }
        if sequence == last.sequence, peer == last.peer { return .repeat }
        return .replay
    }

    /// What a beacon means for what we know of its device.
    enum BeaconVerdict: Equatable {
        /// A higher sequence (or the first): it may move the device and list a new version.
        case news
        /// The current sequence from the address it came from: refreshes, moves nothing.
        case `repeat`
        /// Older, or the current one from elsewhere: changes nothing.
        case replay
    }
}
