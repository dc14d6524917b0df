#if canImport(Glibc)
import Glibc
#endif

/// Whether the kernel offers LE credit-based L2CAP channels (LE CoC): a `SOCK_SEQPACKET` L2CAP socket bound to an
/// LE address with a dynamic PSM, listening. Nothing goes on the air and no controller is needed.
public enum L2CAPProbe {
    /// What the probe found.
    public enum Result: Sendable, Equatable, Codable {
        /// A listening LE CoC socket was created; the kernel assigned `psm`.
        case available(psm: UInt16)
        /// A step failed: `step` is the call, `error` the errno text.
        case unavailable(step: String, error: String)
    }

    private static let afBluetooth: Int32 = 31
    private static let btprotoL2CAP: Int32 = 0
    private static let bdaddrLEPublic: UInt8 = 1

    /// Runs the probe.
    public static func run() -> Result {
        let fd = socket(afBluetooth, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoL2CAP)
        guard fd >= 0 else { return failure("socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)") }
        defer { close(fd) }
        // struct sockaddr_l2 { sa_family_t family; __le16 psm; bdaddr_t bdaddr; __le16 cid; u8 bdaddr_type; }
        // (14 bytes); PSM 0 asks the kernel for a free dynamic LE PSM, BDADDR_ANY for every controller.
        var address = [UInt8](repeating: 0, count: 14)
        address[0] = UInt8(afBluetooth)
        address[12] = bdaddrLEPublic
        let bound = address.withUnsafeMutableBytes { raw in
            raw.withMemoryRebound(to: sockaddr.self) { bind(fd, $0.baseAddress, socklen_t(raw.count)) }
        }
        guard bound == 0 else { return failure("bind(LE, PSM 0)") }
        guard listen(fd, 1) == 0 else { return failure("listen") }
        var length = socklen_t(address.count)
        let named = address.withUnsafeMutableBytes { raw in
            raw.withMemoryRebound(to: sockaddr.self) { getsockname(fd, $0.baseAddress, &length) }
        }
        guard named == 0 else { return failure("getsockname") }
        return .available(psm: UInt16(address[2]) | UInt16(address[3]) << 8)
    }

    private static func failure(_ step: String) -> Result {
        .unavailable(step: step, error: String(cString: strerror(errno)))
    }
}
