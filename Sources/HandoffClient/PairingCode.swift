/// The code two devices show while pairing; the user checks both screens show the same.
public struct PairingCode: Sendable, Equatable {
    /// The device being paired with.
    public var deviceName: String
    /// The code, six digits.
    public var code: String

    /// Creates a pairing code.
    public init(deviceName: String, code: String) {
        self.deviceName = deviceName
        self.code = code
    }
}
