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
