#if canImport(Glibc)
import Glibc
#endif

/// Whether the fast lane (Docs/protocol.md §9) can work here: the addresses this machine would offer a paired
/// peer (interfaces up and running; not loopback, link-local, multicast or unspecified, as the daemon's lane
/// policy), and whether a TCP socket can listen, on a port the kernel picks. Nothing is sent, and the socket is
/// closed at once.
public enum LaneProbe {
    /// What the probe found.
    public struct Facts: Sendable, Equatable {
        /// `interface address` for each address a peer could be offered (`wlan0 192.168.1.20`).
        public var addresses: [String]
        /// The port a listening TCP socket got, or the step that failed and why.
        public var listener: Result<UInt16, DoctorFacts.ProbeFailure>

        public init(addresses: [String], listener: Result<UInt16, DoctorFacts.ProbeFailure>) {
            self.addresses = addresses
            self.listener = listener
        }
    }

    /// Runs the probe.
    public static func run() -> Facts {
        Facts(addresses: addresses(), listener: listen())
    }

    static func addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let address = entry.pointee.ifa_addr, let text = offerable(address) else { continue }
            let line = String(cString: entry.pointee.ifa_name) + " " + text
            if !found.contains(line) { found.append(line) }
        }
        return found
    }

    /// The address as text when the daemon would offer it.
    static func offerable(_ address: UnsafePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
            guard bytes[0] != 127, bytes[0] != 0, bytes[0] < 224 else { return nil }
            return bytes.map(String.init).joined(separator: ".")
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            guard !loopback, !mapped, !bytes.allSatisfy({ $0 == 0 }), bytes[0] != 0xFF,
                  !(bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) else { return nil }
            var groups: [String] = []
            for index in stride(from: 0, to: 16, by: 2) {
                groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
            }
            return groups.joined(separator: ":")
        default:
            return nil
        }
    }

    /// A listening IPv4 TCP socket on every address, port 0; its port, then closed.
    static func listen() -> Result<UInt16, DoctorFacts.ProbeFailure> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return failure("socket(AF_INET, SOCK_STREAM)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return failure("bind(0.0.0.0, port 0)") }
        guard Glibc.listen(fd, 1) == 0 else { return failure("listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return failure("getsockname") }
        return .success(UInt16(bigEndian: address.sin_port))
    }

    private static func failure(_ step: String) -> Result<UInt16, DoctorFacts.ProbeFailure> {
        .failure(DoctorFacts.ProbeFailure("\(step): \(String(cString: strerror(errno)))"))
    }
}
