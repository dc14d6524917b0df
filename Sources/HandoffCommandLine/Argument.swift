/// A positional argument (`handoff unpair DEVICE`), declared with the type of its value.
public struct Argument<Value: ArgumentValue>: Sendable {
    /// The type-erased description the parser and generators read.
    public let parameter: Parameter

    /// Describes a positional argument.
    /// - Parameters:
    ///   - valueName: The placeholder shown in help and errors (`device` prints as `<device>`).
    ///   - help: What the argument means, in sentences.
    ///   - optional: Whether the command runs without it.
    ///   - defaultDescription: What happens when an optional argument is absent, shown in help.
    ///   - repeating: Whether it takes every remaining positional word (only the last argument may).
    ///   - completion: How shells complete the value; by default the closed set of `Value`, if any.
    public init(
        _ valueName: String,
        help: String,
        optional: Bool = false,
        defaultDescription: String? = nil,
        repeating: Bool = false,
        completion: CompletionKind? = nil
    ) {
        let choices = Value.allValueStrings
        parameter = Parameter(
            kind: .argument, key: valueName, longName: nil, shortName: nil, valueName: valueName, help: help,
            defaultDescription: defaultDescription, isOptional: optional, isRepeating: repeating,
            completion: completion ?? (choices.isEmpty ? .none : .choices(choices)),
            valueDescription: Value.valueDescription,
            accepts: { Value(argument: $0) != nil })
    }
}
