/// The options, flags and positional arguments of one command, declared as the stored properties of one type.
///
/// Declare each parameter once, as a `let` with its ``Option``, ``Flag`` or ``Argument`` value, in the order help
/// lists them. The command's ``Command/parameters`` are read from these properties, and the command's `run`
/// reads values back through key paths into this type (``Parsed``), so a command can only read what it declared:
/// reading another command's option, or one that is not declared, does not compile.
///
/// ```swift
/// struct Parameters: ParameterSet {
///     let json = Flag("json", help: "Print JSON.")
///     let grace = Option<Int>("grace", valueName: "seconds", help: "How long.", defaultValue: 30)
/// }
/// ```
public protocol ParameterSet: Sendable {
    /// The declaration; every stored property has its value.
    init()
}

extension ParameterSet {
    /// The declared parameters, in declaration order (stored properties that are not parameters are skipped).
    public static var parameters: [Parameter] {
        Mirror(reflecting: Self()).children.compactMap { ($0.value as? any ParameterConvertible)?.parameter }
    }
}

/// The parameters of a command that takes none.
public struct NoParameters: ParameterSet {
    /// Nothing to declare.
    public init() {}
}
