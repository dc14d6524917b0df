/// A switch without a value (`--json`, `-p`): present or absent.
public struct Flag: Sendable {
    /// The type-erased description the parser and generators read.
    public let parameter: Parameter

    /// Describes a flag.
    /// - Parameters:
    ///   - name: The long name without dashes (`json`).
    ///   - short: An optional one-letter short name.
    ///   - help: What the flag does, in sentences.
    public init(_ name: String, short: Character? = nil, help: String) {
        parameter = Parameter(
            kind: .flag, key: name, longName: name, shortName: short, valueName: nil, help: help,
            defaultDescription: nil, isOptional: true, isRepeating: false, completion: .none,
            valueDescription: "nothing", accepts: { _ in true })
    }
}
