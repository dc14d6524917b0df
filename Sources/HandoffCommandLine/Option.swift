/// An option that takes a value (`--grace 30`, `--grace=30`, `-g 30`), declared with the type of its value.
///
/// Declare it once as a static constant, list it in the command's ``Command/parameters``, and read the parsed,
/// already converted value back with ``Invocation/subscript(_:)-(Option<Value>)``.
public struct Option<Value: ArgumentValue>: Sendable {
    /// The type-erased description the parser and generators read.
    public let parameter: Parameter
    /// The value used when the option is absent.
    public let defaultValue: Value?

    /// Describes an option.
    /// - Parameters:
    ///   - name: The long name without dashes (`grace`).
    ///   - short: An optional one-letter short name (`g`).
    ///   - valueName: The placeholder shown in help (`seconds`).
    ///   - help: What the option does, in sentences.
    ///   - defaultValue: The value when the option is absent; shown in help.
    ///   - repeating: Whether the option may be given several times.
    ///   - completion: How shells complete the value; by default the closed set of `Value`, if any.
    public init(
        _ name: String,
        short: Character? = nil,
        valueName: String,
        help: String,
        defaultValue: Value? = nil,
        repeating: Bool = false,
        completion: CompletionKind? = nil
    ) {
        self.defaultValue = defaultValue
        let choices = Value.allValueStrings
        self.parameter = Parameter(
            kind: .option, key: name, longName: name, shortName: short, valueName: valueName, help: help,
            defaultDescription: defaultValue.map { "\($0)" }, isOptional: true, isRepeating: repeating,
            completion: completion ?? (choices.isEmpty ? .none : .choices(choices)),
            valueDescription: Value.valueDescription,
            accepts: { Value(argument: $0) != nil })
    }
}
