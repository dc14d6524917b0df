/// The parsed values of one command, read through key paths into the command's own ``ParameterSet``.
///
/// Only the library makes one, from the ``Invocation`` the parser returned for that very command, so every
/// parameter a key path can name was declared by it and accepted by its type while parsing.
public struct Parsed<Parameters: ParameterSet>: Sendable {
    /// The untyped result of parsing; kept private, so values are read only through this command's key paths.
    private let invocation: Invocation
    private let declaration = Parameters()

    init(_ invocation: Invocation) {
        self.invocation = invocation
    }

    /// The option's value: the last one given, else its default, else nil.
    public subscript<Value>(_ option: KeyPath<Parameters, Option<Value>>) -> Value? {
        invocation[declaration[keyPath: option]]
    }

    /// Every value given for a repeating option, in command-line order (empty when absent).
    public func all<Value>(_ option: KeyPath<Parameters, Option<Value>>) -> [Value] {
        invocation.all(declaration[keyPath: option])
    }

    /// Whether the flag was given.
    public subscript(_ flag: KeyPath<Parameters, Flag>) -> Bool {
        invocation[declaration[keyPath: flag]]
    }

    /// The positional argument's value, or nil when an optional argument was left out.
    public subscript<Value>(_ argument: KeyPath<Parameters, Argument<Value>>) -> Value? {
        invocation[declaration[keyPath: argument]]
    }

    /// Every value given for a repeating positional argument, in command-line order (empty when absent).
    public func all<Value>(_ argument: KeyPath<Parameters, Argument<Value>>) -> [Value] {
        invocation.all(declaration[keyPath: argument])
    }
}
