/// A peer's address as the radio knows it (a BLE address such as "AA:BB:…", or a BlueZ device path).
/// With LE privacy it rotates; HandoffKit never uses it as an identity.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address text.
    public let rawValue: String
    /// Wraps an address.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The address text.
    public var description: String { rawValue }
}
