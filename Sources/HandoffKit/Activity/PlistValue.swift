import Foundation

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

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `"text"` as a value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` as a value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `1.5` as a value.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `true` as a value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[1, "a"]` as a value.
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    /// `["k": 1]` as a value.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension PlistValue {
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The integer, if this is `.integer`.
    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The URL, if this is `.url`.
    public var urlValue: URL? { if case .url(let v) = self { v } else { nil } }
}
