#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An owned Unix file descriptor, the Swift side of D-Bus type `h`.
///
/// The descriptor is closed when the last copy of this value goes away (copies share one owner). Sending one over
/// D-Bus duplicates it (libdbus keeps its own copy until the message is written), and every received descriptor
/// is a fresh one owned by the received value, so the sender and the receiver never close each other's
/// descriptors.
public struct UnixFileDescriptor: Sendable, Equatable, CustomStringConvertible {
    /// Closes the descriptor when the last value sharing it is gone.
    private final class Owner: Sendable {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }

    private let owner: Owner

    /// The descriptor number. Valid while a copy of this value is alive; do not close it yourself.
    public var rawValue: Int32 { owner.descriptor }

    /// Takes ownership of `descriptor`; it will be closed when the last copy of this value is released.
    public init(takingOwnershipOf descriptor: Int32) {
        self.owner = Owner(descriptor)
    }

    /// Duplicates `descriptor` (close-on-exec); the caller keeps and still owns the original.
    ///
    /// - Throws: ``DBusError`` `.invalidValue` when `descriptor` is not open.
    public init(duplicating descriptor: Int32) throws(DBusError) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw DBusError(.invalidValue, "cannot duplicate file descriptor \(descriptor): errno \(errno)")
        }
        self.owner = Owner(copy)
    }

    /// A new descriptor for the same open file that the caller owns and must close.
    ///
    /// - Throws: ``DBusError`` `.invalidValue` when duplication fails (e.g. too many open files).
    public func duplicateRawDescriptor() throws(DBusError) -> Int32 {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw DBusError(.invalidValue, "cannot duplicate file descriptor \(rawValue): errno \(errno)")
        }
        return copy
    }

    /// Two values are equal when they share one owned descriptor.
    public static func == (lhs: UnixFileDescriptor, rhs: UnixFileDescriptor) -> Bool { lhs.owner === rhs.owner }

    /// `fd N`.
    public var description: String { "fd \(rawValue)" }
}
