/// The source's beacon sequence numbers: each advertisement of a new version takes the next one, they never repeat
/// within a run (the daemon persists `last` and starts the next run above it), and a REQUEST is answered only for
/// one of the current activity's latest 32, so a request naming an activity no longer offered is refused.
struct BeaconSequences: Sendable {
    /// How many of the current activity's sequences a REQUEST may still name.
    static let servedLimit = 32

    /// The next number to take.
    private(set) var next: UInt32
    /// The number taken last (an activity's or a presence beacon's), if any.
    private(set) var last: UInt32?
    private var served: [UInt32] = []

    init(first: UInt32) {
        next = first
    }

    /// Takes the next number, for a new version of the current activity (`serving`) or for a presence beacon.
    mutating func take(serving: Bool) -> UInt32 {
        let sequence = next
        next &+= 1
        last = sequence
        if serving {
            served.append(sequence)
            if served.count > Self.servedLimit { served.removeFirst(served.count - Self.servedLimit) }
        }
        return sequence
    }

    /// Another activity became current, or none is: no earlier sequence is answered any more.
    mutating func stopServing() {
        served = []
    }

    /// Whether a REQUEST naming `sequence` is for the current activity.
    func serves(_ sequence: UInt32) -> Bool {
        served.contains(sequence)
    }
}
