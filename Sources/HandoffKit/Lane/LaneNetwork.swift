/// The seam between HandoffKit and the network the two machines may already share: the fast lane
/// (Docs/protocol.md §9). HandoffKit knows no sockets; HandoffLane implements this over TCP, and a test can pass
/// the same implementation with a policy that admits loopback.
///
/// The lane only ever listens on, offers and connects to addresses of interfaces the machine already has. It
/// never joins, creates or reconfigures a network, and it broadcasts nothing (no mDNS, no beacon on the LAN): the
/// peer learns the addresses and the port inside the sealed BLE exchange, and nobody else learns anything.
package protocol LaneNetwork: Sendable {
    /// Opens a listening socket on a port the kernel picks, for one offer. Its `endpoints` are the machine's
    /// current addresses with that port (the engine keeps those the policy allows).
    func listen() async throws(LaneError) -> any LaneListener
    /// Connects to the first of `endpoints` that answers, each tried in turn within `timeout` in all.
    func connect(to endpoints: [LaneEndpoint], timeout: Duration) async throws(LaneError) -> any LaneConnection
}

/// A listening socket that lives as long as one offer.
package protocol LaneListener: AnyObject, Sendable {
    /// Where it can be reached: the machine's addresses with its port.
    var endpoints: [LaneEndpoint] { get }
    /// Connections as they are accepted. Finishes when the listener closes.
    var connections: AsyncStream<any LaneConnection> { get }
    /// Stops listening (the port is closed at once). Idempotent; accepted connections stay open.
    func close()
}

/// One TCP connection carrying whole frames (each `length(4) ‖ frame` on the stream).
package protocol LaneConnection: Sendable {
    /// The peer's address and port, for logs.
    var remote: String { get }
    /// Frames from the peer, in order. Finishes when the connection closes or breaks.
    var frames: AsyncStream<[UInt8]> { get }
    /// Sends one frame (at most `LaneFraming.maximumFrameLength` bytes).
    func send(_ frame: [UInt8]) async throws(LaneError)
    /// Closes the connection; `frames` finishes. Idempotent.
    func close()
}

/// What the lane reports when it cannot listen or connect.
package struct LaneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words (with the errno text).
    package var message: String
    /// An error.
    package init(_ message: String) { self.message = message }
    /// `fast lane: …`.
    package var description: String { "fast lane: \(message)" }
}

/// How frames sit on the lane's byte stream.
package enum LaneFraming {
    /// The largest frame either side sends or takes (a longer length prefix closes the connection).
    package static let maximumFrameLength = 1 << 20
    /// The frame size the engine fills on the lane (DATA frames of 256 KiB: 64 records of 4 KiB, so the hops of
    /// a frame from socket to engine cost little per byte). A peer built when this was 64 KiB takes them: it reads
    /// frames up to `maximumFrameLength`.
    package static let frameLength = 1 << 18
}

/// An address and port of the machine that offers the lane.
package struct LaneEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 (4 bytes) or IPv6 (16 bytes).
    package var address: [UInt8]
    /// The TCP port.
    package var port: UInt16

    /// An endpoint; nil unless `address` is 4 or 16 bytes.
    package init?(address: [UInt8], port: UInt16) {
        guard address.count == 4 || address.count == 16 else { return nil }
        self.address = address
        self.port = port
    }

    /// Whether it is IPv4.
    package var isIPv4: Bool { address.count == 4 }

    /// 127.0.0.0/8, ::1, and IPv4-mapped loopback.
    package var isLoopback: Bool {
        if isIPv4 { return address[0] == 127 }
        if address == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return isMapped && address[12] == 127
    }

    private var isMapped: Bool { !isIPv4 && address[0..<10].allSatisfy { $0 == 0 } && address[10] == 0xFF && address[11] == 0xFF }

    /// Whether a peer could ever reach it as a unicast address: not unspecified, multicast, broadcast or an
    /// IPv6 link-local address (which needs a scope the offer does not carry).
    package var isUnicast: Bool {
        if isIPv4 {
            if address == [0, 0, 0, 0] || address == [255, 255, 255, 255] { return false }
            return address[0] < 224   // 224/4 multicast, 240/4 reserved
        }
        if address.allSatisfy({ $0 == 0 }) { return false }
        if address[0] == 0xFF { return false }                           // multicast
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        return true
    }

    /// `192.0.2.7:40123` or `[2001:db8::7]:40123`.
    package var description: String {
        if isIPv4 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        var groups: [String] = []
        for index in stride(from: 0, to: 16, by: 2) {
            groups.append(String(UInt16(address[index]) << 8 | UInt16(address[index + 1]), radix: 16))
        }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}

/// Which addresses the lane may offer, accept on and connect to. Production refuses loopback: a peer must never
/// make this machine connect to its own local services, and an offer of 127.0.0.1 could only ever reach the
/// offerer's own machine. Tests on one host admit it (`loopbackForTests`).
package struct LanePolicy: Sendable, Equatable {
    /// Whether loopback addresses are offered, accepted on and connected to.
    package var allowsLoopback: Bool

    /// A policy.
    package init(allowsLoopback: Bool) { self.allowsLoopback = allowsLoopback }

    /// The rule of the shipped daemon: never loopback.
    package static let production = LanePolicy(allowsLoopback: false)
    /// For tests that run both ends on one host's loopback. Never used by the daemon.
    package static let loopbackForTests = LanePolicy(allowsLoopback: true)

    /// Whether `endpoint` may be offered or connected to.
    package func admits(_ endpoint: LaneEndpoint) -> Bool {
        endpoint.isUnicast && (allowsLoopback || !endpoint.isLoopback) && endpoint.port != 0
    }
}

/// The fast lane's settings in a `HandoffConfiguration` (nil there: the lane is off, BLE carries everything).
package struct FastLane: Sendable {
    /// The network (HandoffLane's `TCPLane` in the daemon).
    package var network: any LaneNetwork
    /// Which addresses it may use (`.production`: never loopback).
    package var policy: LanePolicy
    /// A transfer moves to the lane when at least this many sealed-stream bytes remain (default 256 KiB, about
    /// a second over an L2CAP channel).
    package var threshold = 256 * 1024
    /// A connection to the offered port must prove itself (LANE-HELLO) within this, or is closed; the connector
    /// waits as long for LANE-WELCOME (default 750 ms: the goal is "closed within a second", and the timer that
    /// closes a silent connection fires late by however long its task waits for a core, 57 ms in a bench at load
    /// 5 with a deadline of exactly 1 s).
    package var helloDeadline: Duration = .milliseconds(750)
    /// How long an offer's listener lives when nobody proves themselves on it (default 10 s).
    package var offerLifetime: Duration = .seconds(10)
    /// How long the sender tries the offered endpoints, all together (default 3 s).
    package var connectTimeout: Duration = .seconds(3)
    /// After a failed attempt, or after the lane dropped, the sender asks again this long later while the
    /// transfer goes on over BLE (default 5 s), so the lane comes back when the network does.
    package var retryInterval: Duration = .seconds(5)
    /// Hears each step of each attempt (``LaneEvent``), on whatever task took it: the daemon logs them. Called
    /// while nothing is held, and must return quickly.
    package var report: @Sendable (LaneEvent) -> Void = { _ in }

    /// The lane over `network`, under `policy`.
    package init(network: any LaneNetwork, policy: LanePolicy = .production) {
        self.network = network
        self.policy = policy
    }
}
