/// A type a command-line value can be converted to.
///
/// The parser converts every value while parsing, so a bad value is reported as a usage error naming the option,
/// never discovered later by the command.
public protocol ArgumentValue: Sendable {
    /// Converts one command-line word, or returns nil when it is not a valid value.
    init?(argument: String)

    /// A short phrase naming what a valid value looks like, used in errors: "a number", "one of bash, zsh".
    static var valueDescription: String { get }

    /// Every valid value when the set is closed (used for completions and help); empty when it is open.
    static var allValueStrings: [String] { get }
}

extension ArgumentValue {
    /// An open set of values by default.
    public static var allValueStrings: [String] { [] }
}

extension String: ArgumentValue {
    /// Any word is a valid string.
    public init?(argument: String) {
        self = argument
    }

    /// "a string".
    public static var valueDescription: String { "a string" }
}

extension Int: ArgumentValue {
    /// Decimal integers, optionally signed.
    public init?(argument: String) {
        self.init(argument, radix: 10)
    }

    /// "an integer".
    public static var valueDescription: String { "an integer" }
}

extension Double: ArgumentValue {
    /// Finite decimal numbers ("1", "2.5"); "nan" and "inf" are refused.
    public init?(argument: String) {
        guard let value = Double(argument), value.isFinite else { return nil }
        self = value
    }

    /// "a number".
    public static var valueDescription: String { "a number" }
}

extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// Matches a case by its raw value, exactly.
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// "one of a, b, c".
    public static var valueDescription: String {
        "one of " + allValueStrings.joined(separator: ", ")
    }

    /// The raw values of all cases, in declaration order.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
