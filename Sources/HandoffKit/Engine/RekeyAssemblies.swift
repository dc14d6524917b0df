import HandoffShared

/// Rekey messages being assembled from their fragments, one per writing central, without I/O.
///
/// Each central's message is its own: a new central never wipes another's. At most `capacity` are kept; when all
/// are taken, one quiet for `quietLimit` makes room, and otherwise the newcomer is refused (it writes again later).
/// So eight strangers can delay a rekey by at most `quietLimit`, never erase one half-assembled.
struct RekeyAssemblies: Sendable {
    private struct Assembly: Sendable {
        var session: Nonce
        var fragments = PairingFragments()
        var heard: HandoffInstant
    }

    private let capacity: Int
    private let quietLimit: Duration
    private var assemblies: [PeerAddress: Assembly] = [:]

    init(capacity: Int = 8, quietLimit: Duration) {
        self.capacity = capacity
        self.quietLimit = quietLimit
    }

    /// What a fragment led to.
    enum Outcome: Equatable {
        /// More fragments are needed (or the fragment was refused for want of room).
        case incomplete
        /// The whole message.
        case complete([UInt8])
        /// The fragment did not fit the message it belongs to; that message is dropped.
        case malformed
    }

    /// `central` wrote fragment `index` of `count` of session `session` at `now`.
    mutating func add(from central: PeerAddress, session: Nonce, index: UInt8, count: UInt8, chunk: [UInt8],
                      at now: HandoffInstant) -> Outcome {
        var assembly: Assembly
        if let existing = assemblies[central], existing.session == session {
            assembly = existing
        } else {
            if assemblies[central] == nil, assemblies.count >= capacity {
                assemblies = assemblies.filter { now < $0.value.heard + quietLimit }
                guard assemblies.count < capacity else { return .incomplete }
            }
            assembly = Assembly(session: session, heard: now)
        }
        assembly.heard = now
        do {
            guard let message = try assembly.fragments.add(index: index, count: count, chunk: chunk) else {
                assemblies[central] = assembly
                return .incomplete
            }
            assemblies[central] = nil
            return .complete(message)
        } catch {
            assemblies[central] = nil
            return .malformed
        }
    }
}
