#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why an L2CAP socket operation failed. Every call of this layer throws it, typed: `throws(L2CAPError)`.
///
/// `kind` is what a caller decides on (fall back to GATT on `.unsupported` or `.refused`, resume on `.reset`);
/// `errno` is the kernel's own code when there is one; `message` says what was being done, to what, and why.
public struct L2CAPError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No Bluetooth sockets in this kernel, or no LE credit-based channels (EAFNOSUPPORT, EPROTONOSUPPORT,
        /// ESOCKTNOSUPPORT, EOPNOTSUPP).
        case unsupported
        /// The peer refused the channel (ECONNREFUSED): mostly "SPSM not supported", nothing listens on that PSM;
        /// Linux reports every refusal but the security ones so, "Source CID already allocated" included.
        case refused
        /// The adapter or the peer cannot be reached: EHOSTUNREACH, EHOSTDOWN, ENETDOWN, ENETUNREACH, ENODEV,
        /// EADDRNOTAVAIL (no powered adapter with that address).
        case unreachable
        /// The peer or the link went away: ECONNRESET, EPIPE, ENOTCONN, ECONNABORTED, ENOLINK.
        case reset
        /// Our own deadline passed, or the kernel's (ETIMEDOUT).
        case timedOut
        /// The socket was used after `close()`, or closed while an operation waited.
        case closed
        /// The waiting task was cancelled.
        case cancelled
        /// An SDU larger than the channel's send MTU (or EMSGSIZE).
        case messageTooLong
        /// Anything else; `errno` and `message` say what.
        case failed
    }

    public let kind: Kind
    public let errno: Int32?
    public let message: String

    public init(_ kind: Kind, errno: Int32? = nil, message: String) {
        self.kind = kind
        self.errno = errno
        self.message = message
    }

    /// The error for a failed system call: "`operation`: Connection refused (ECONNREFUSED)".
    init(errno code: Int32, _ operation: String) {
        self.init(Self.kind(errno: code), errno: code, message: "\(operation): \(Self.describe(errno: code))")
    }

    public var description: String { message }

    /// The kind a kernel error code maps to.
    static func kind(errno code: Int32) -> Kind {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT, EOPNOTSUPP: .unsupported
        case ECONNREFUSED: .refused
        case EHOSTUNREACH, EHOSTDOWN, ENETDOWN, ENETUNREACH, ENODEV, EADDRNOTAVAIL: .unreachable
        case ECONNRESET, EPIPE, ENOTCONN, ECONNABORTED, ENOLINK, ESHUTDOWN: .reset
        case ETIMEDOUT: .timedOut
        case EMSGSIZE: .messageTooLong
        case EBADF: .closed
        default: .failed
        }
    }

    /// "Connection refused (ECONNREFUSED)", or "error 1234" for a code this build does not name.
    static func describe(errno code: Int32) -> String {
        let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        guard let name = names[code] else { return "\(text) (errno \(code))" }
        return "\(text) (\(name))"
    }

    private static let names: [Int32: String] = [
        EAFNOSUPPORT: "EAFNOSUPPORT", EPROTONOSUPPORT: "EPROTONOSUPPORT", ESOCKTNOSUPPORT: "ESOCKTNOSUPPORT",
        EOPNOTSUPP: "EOPNOTSUPP", ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH", EHOSTDOWN: "EHOSTDOWN",
        ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH", ENODEV: "ENODEV", EADDRNOTAVAIL: "EADDRNOTAVAIL",
        ECONNRESET: "ECONNRESET", EPIPE: "EPIPE", ENOTCONN: "ENOTCONN", ECONNABORTED: "ECONNABORTED",
        ENOLINK: "ENOLINK", ESHUTDOWN: "ESHUTDOWN", ETIMEDOUT: "ETIMEDOUT", EMSGSIZE: "EMSGSIZE", EBADF: "EBADF",
        EINVAL: "EINVAL", EACCES: "EACCES", EPERM: "EPERM", EADDRINUSE: "EADDRINUSE", EBADFD: "EBADFD",
        EMFILE: "EMFILE", ENFILE: "ENFILE", ENOMEM: "ENOMEM", ENOBUFS: "ENOBUFS", EISCONN: "EISCONN",
        EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", EAGAIN: "EAGAIN", ENOPROTOOPT: "ENOPROTOOPT",
    ]
}
