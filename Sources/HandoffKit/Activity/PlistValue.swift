import FoundationEssentials

/// One property-list value, typed: what `userInfo` may hold. URL is carried as Apple's userInfo allows it.
public enum PlistValue: Sendable, Hashable {
    /// A UTF-8 string.
    case string(String)
    /// A signed 64-bit integer.
    case integer(Int64)
    /// A double-precision real.
    case real(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time (binary plists keep whole-second and fractional parts as a Double since 2001).
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PlistValue])
    /// A dictionary with string keys.
    case dictionary([String: PlistValue])
    /// A URL; on the wire it is the one-key dictionary `{"$handoff.url": "<absolute string>"}`.
    case url(URL)
}

extension PlistValue {
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The integer, if this is `.integer`.
    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The URL, if this is `.url`.
    public var urlValue: URL? { if case .url(let v) = self { v } else { nil } }
}
