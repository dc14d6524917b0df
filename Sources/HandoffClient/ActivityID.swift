/// The daemon's identifier for one activity, opaque to the CLI. Encodes in JSON as a plain string.
public struct ActivityID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier text.
    public let rawValue: String

    /// Wraps an identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Decodes from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The identifier text.
    public var description: String { rawValue }
}
