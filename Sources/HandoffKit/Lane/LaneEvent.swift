import HandoffShared

/// One step of a fast-lane attempt (Docs/protocol.md §9), reported through ``FastLane/report`` so the daemon
/// can log each on a line of its own: the offer sent or received, the connection's outcome, the switch, the bytes
/// the lane carried and their rate, the fall back to BLE and why. `transfer` is the transfer id in hex (a push's is
/// also its outbox item's id); `remote` is an address and port from the socket, never text a peer chose.
package enum LaneEvent: Sendable, Equatable, CustomStringConvertible {
    /// This side (a push's receiver, a continue's client) offered the lane on `addresses` addresses and `port`.
    case offered(transfer: String, addresses: Int, port: UInt16)
    /// This side was asked for the lane and offered none: no listener, or no address the policy admits.
    case notOffered(transfer: String, reason: String)
    /// This side (a push's sender, a continue's source) received an offer naming `addresses` addresses.
    case offerReceived(transfer: String, addresses: Int)
    /// This side connected to the offer at `remote` and both sides proved themselves.
    case connected(transfer: String, remote: String)
    /// This side could not connect to the offer (each address tried), or the other end did not prove itself.
    case connectFailed(transfer: String, reason: String)
    /// A connection to this side's offer, from `remote`, proved itself and was taken.
    case admitted(transfer: String, remote: String)
    /// A connection to this side's offer, from `remote`, did not prove itself in time (or came second) and was
    /// closed without a byte said.
    case refused(transfer: String, remote: String)
    /// The transfer now runs on the lane to `remote`.
    case switched(transfer: String, remote: String)
    /// The lane carried `bytes` sealed-stream bytes of the transfer in `duration`, and the link ended (the
    /// transfer finished, or left the lane).
    case carried(transfer: String, bytes: Int, duration: Duration)
    /// The transfer left the lane for BLE, where the receiver's ACCEPT says where to resume.
    case fellBack(transfer: String, reason: String)

    /// One line: `fast lane: <transfer>: …`.
    package var description: String {
        switch self {
        case .offered(let id, let addresses, let port):
            return "fast lane: \(id): offer sent (\(addresses) address(es), port \(port))"
        case .notOffered(let id, let reason):
            return "fast lane: \(id): no offer: \(reason)"
        case .offerReceived(let id, let addresses):
            return "fast lane: \(id): offer received (\(addresses) address(es))"
        case .connected(let id, let remote):
            return "fast lane: \(id): connected to \(remote), both proven"
        case .connectFailed(let id, let reason):
            return "fast lane: \(id): connection failed: \(reason); staying on BLE"
        case .admitted(let id, let remote):
            return "fast lane: \(id): connection from \(remote) proved itself"
        case .refused(let id, let remote):
            return "fast lane: \(id): connection from \(remote) did not prove itself; closed"
        case .switched(let id, let remote):
            return "fast lane: \(id): switched to tcp (\(remote))"
        case .carried(let id, let bytes, let duration):
            let seconds = duration.timeInterval
            let rate = seconds > 0 ? Double(bytes) / seconds : 0
            return "fast lane: \(id): carried \(bytes) bytes in \(String(cFormat: "%.3f", seconds)) s "
                + "(\(String(cFormat: "%.1f", rate / 1_000_000)) MB/s)"
        case .fellBack(let id, let reason):
            return "fast lane: \(id): back to BLE: \(reason)"
        }
    }
}
