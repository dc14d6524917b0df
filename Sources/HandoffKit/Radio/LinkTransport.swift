/// How the frames of one link travel, and why, when it is not the path the radio prefers.
///
/// A radio that can open an L2CAP LE credit-based channel carries the transfer's frames as whole SDUs on it and
/// keeps GATT (a write characteristic and a notify characteristic) for discovery and as the fallback. The radio
/// says which path a link took, so the engine can fill a whole SDU with DATA and the daemon can tell the user.
public struct LinkTransport: Sendable, Equatable, CustomStringConvertible {
    /// The path.
    public enum Kind: String, Sendable, Equatable {
        /// GATT: frames are writes to the request characteristic and notifications of the data characteristic.
        case gatt
        /// An L2CAP LE credit-based channel: reliable, ordered, flow-controlled SDUs.
        case l2cap
        /// The fast lane: a TCP connection over a network both machines already share, proven under the
        /// transfer's key (Docs/protocol.md §9).
        case tcp
    }

    /// Why a radio that prefers the channel used GATT.
    public enum Fallback: String, Sendable, Equatable {
        /// The peer publishes no channel (no PSM characteristic: an older build, or its kernel cannot listen).
        case notPublished = "no-psm"
        /// The peer publishes a PSM but refused the channel (nothing listens on it).
        case refused
        /// This device's kernel has no LE connection-oriented channels.
        case unsupported = "no-le-coc"
        /// The channel could not be opened for another reason (its message says which).
        case failed = "channel-failed"
    }

    /// The path used.
    public var kind: Kind
    /// Set when the link uses GATT although the radio tried the channel first.
    public var fallback: Fallback?
    /// Details for logs: the PSM and SDU sizes of a channel, or what made it fall back.
    public var detail: String

    /// A link on `kind`, with optional details.
    public init(_ kind: Kind, detail: String = "") {
        self.kind = kind
        self.fallback = nil
        self.detail = detail
    }

    /// A GATT link that fell back from the channel for `reason`.
    public init(fallback reason: Fallback, detail: String) {
        self.kind = .gatt
        self.fallback = reason
        self.detail = detail
    }

    /// Plain GATT, the only path there was (no fallback).
    public static let gatt = LinkTransport(.gatt)

    /// `l2cap (PSM 0x0081, SDU 65535 B)`, `gatt (fell back: no-psm, …)`, or `gatt`.
    public var description: String {
        if let fallback { return "gatt (fell back from l2cap: \(fallback.rawValue)\(detail.isEmpty ? "" : ", \(detail)"))" }
        return detail.isEmpty ? kind.rawValue : "\(kind.rawValue) (\(detail))"
    }
}

/// One measured step of opening a link (connect, services resolved, PSM read, channel open, subscribe), so
/// benches and logs can show where the time of a small continue goes.
public struct LinkSetupPhase: Sendable, Equatable {
    /// A short name: `connect`, `services`, `psm`, `channel`, `subscribe`.
    public var name: String
    /// How long it took.
    public var duration: Duration

    /// A phase.
    public init(_ name: String, _ duration: Duration) {
        self.name = name
        self.duration = duration
    }
}
