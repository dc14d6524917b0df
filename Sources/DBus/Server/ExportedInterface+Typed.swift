/// Methods declared by their Swift types: the signatures that introspection shows and that calls are checked
/// against follow from the types, so they cannot disagree with what the handler reads and returns. (Signals:
/// ``SignalDeclaration``.)
extension ExportedInterface {
    /// Declares a method by its arguments' and results' Swift types; its input and output signatures follow
    /// from them. A later declaration with the same name replaces the earlier one.
    ///
    /// The handler gets the call and its arguments, already converted; what it returns is converted back (a
    /// single result is returned as itself, none as `()`).
    ///
    /// ```swift
    /// greeter.method("Greet", in: String.self, out: String.self, inputNames: ["name"]) { call, name in
    ///     "Hello, \(name)"
    /// }
    /// ```
    public mutating func method<each Input: DBusRepresentable, each Output: DBusRepresentable>(
        _ name: MemberName, in input: repeat (each Input).Type, out output: repeat (each Output).Type,
        inputNames: [String] = [], outputNames: [String] = [], noReply: Bool = false,
        handler: @escaping @Sendable (MethodCall, repeat each Input) async throws -> (repeat each Output)
    ) {
        method(
            name, in: Signature(of: repeat each input), out: Signature(of: repeat each output), inputNames: inputNames,
            outputNames: outputNames, noReply: noReply
        ) { call in
            // The arguments were checked against the input signature before the handler runs, so these reads
            // succeed.
            var reader = ValueReader(call.arguments)
            let arguments = (repeat try reader.next((each Input).self))
            let results = try await handler(call, repeat each arguments)
            var values: [Value] = []
            for result in repeat each results { values.append(result.dbusValue) }
            return values
        }
    }
}
