/// One key–value pair of a D-Bus dictionary (`{KV}`).
public struct DictionaryEntry: Sendable, Equatable {
    /// The key; a basic type.
    public var key: Value
    /// The value.
    public var value: Value

    /// Creates an entry.
    public init(key: Value, value: Value) {
        self.key = key
        self.value = value
    }
}
