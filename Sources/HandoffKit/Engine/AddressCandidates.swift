/// The other addresses a trusted device's current beacon was heard from. Under LE privacy a device's address
/// rotates on its own (BlueZ's RPA timeout) and its source re-seals the same sequence there, so the current sequence
/// from a new address is either the device that moved or a stranger replaying a recorded beacon; a beacon cannot
/// tell them apart (Docs/protocol.md, "The gate"). A candidate therefore moves, lists and announces nothing: it is
/// only tried, newest first, when the device's own address cannot be reached or does not answer, and only the one
/// that completes an authenticated exchange becomes the device's address. Forgotten with each new sequence.
struct AddressCandidates: Sendable, Equatable {
    /// How many distinct addresses are kept (the oldest goes first).
    static let limit = 4

    /// The sequence they were heard with.
    let sequence: UInt32
    /// Newest first, at most `limit`, never the device's own address.
    private(set) var addresses: [PeerAddress] = []

    /// None yet, for a device whose current sequence is `sequence`.
    init(sequence: UInt32) {
        self.sequence = sequence
    }

    /// A beacon of `sequence` heard from `peer` while the device's address is `current`, which the gate called a
    /// replay (`Gate.beaconMoves`). Only the current sequence from another address is kept; an older one is not.
    mutating func heard(sequence: UInt32, from peer: PeerAddress, current: PeerAddress) {
        guard sequence == self.sequence, peer != current else { return }
        addresses.removeAll { $0 == peer }
        addresses.insert(peer, at: 0)
        if addresses.count > Self.limit { addresses.removeLast(addresses.count - Self.limit) }
    }

    /// The device proved itself at `peer`, which is now its address and no longer a candidate.
    mutating func proven(_ peer: PeerAddress) {
        addresses.removeAll { $0 == peer }
    }

    /// The candidates for an attempt on `sequence`: none once the device has moved on to another one.
    func addresses(for sequence: UInt32) -> [PeerAddress] {
        sequence == self.sequence ? addresses : []
    }

    /// Whether a failure at the device's address is one that a move could explain, so the candidates are worth
    /// trying: it could not be reached (4609) or did not answer in time (4610). Any other error came from the device.
    static func worthFollowing(_ error: HandoffError) -> Bool {
        error.code == .connectionUnavailable || error.code == .remoteApplicationTimedOut
    }
}
