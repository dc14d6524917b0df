/// A list of Swift types, as one type: `DBusTypes<String, UInt32>`. Never instantiated; ``MethodDeclaration``
/// carries its argument and result types in two of them, since a generic type may declare only one pack.
public struct DBusTypes<each T: DBusRepresentable>: Sendable {}

/// A method's name and the Swift types of its arguments and results, said once and shared by the side that exports
/// it and the side that calls it, as zbus's interfaces and proxies share one declaration: both signatures follow
/// from the types, the exporter's handler takes and returns Swift values, and so does the caller. (Signals:
/// ``SignalDeclaration``.)
///
/// ```swift
/// let greet = MethodDeclaration("Greet", in: String.self, out: String.self, inputNames: ["name"])
/// greeter.method(greet) { call, name in "Hello, \(name)" }                         // the exporter
/// let text = try await bus.call(greet, "Ada", destination: "org.example.Greeter", path: "/org/example/greeter",
///                               interface: "org.example.Greeter1")                  // a caller: "Hello, Ada"
/// ```
public struct MethodDeclaration<Input, Output>: Sendable {
    /// The method name.
    public let name: MemberName
    /// The arguments' signature.
    public let inputSignature: Signature
    /// The results' signature.
    public let outputSignature: Signature
    /// Argument names for introspection.
    public let inputNames: [String]
    /// Result names for introspection.
    public let outputNames: [String]
}

extension MethodDeclaration {
    /// Declares a method named `name` whose arguments and results have the given types, in order.
    public init<each In: DBusRepresentable, each Out: DBusRepresentable>(
        _ name: MemberName, in input: repeat (each In).Type, out output: repeat (each Out).Type,
        inputNames: [String] = [], outputNames: [String] = []
    ) where Input == DBusTypes<repeat each In>, Output == DBusTypes<repeat each Out> {
        self.init(name: name, inputSignature: Signature(of: repeat each input),
                  outputSignature: Signature(of: repeat each output), inputNames: inputNames, outputNames: outputNames)
    }

    /// The arguments of a call, as D-Bus values.
    public func arguments<each In: DBusRepresentable>(_ arguments: repeat each In) -> [Value]
    where Input == DBusTypes<repeat each In> {
        var values: [Value] = []
        for argument in repeat each arguments { values.append(argument.dbusValue) }
        return values
    }

    /// Reads a reply's values as the declared results (a single result is returned as itself, none as `()`).
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when the reply does not have the declared output signature.
    public func results<each Out: DBusRepresentable>(of values: [Value]) throws(DBusError) -> (repeat each Out)
    where Output == DBusTypes<repeat each Out> {
        try ValueReader.read(values, as: repeat (each Out).self, signature: outputSignature,
                             what: "the reply to '\(name)'")
    }
}

extension ExportedInterface {
    /// Exports a declared method: its signatures and introspection names come from the declaration, and the
    /// handler gets the call and its arguments, already converted, and returns its results (see
    /// ``method(_:in:out:inputNames:outputNames:noReply:handler:)``).
    public mutating func method<each In: DBusRepresentable, each Out: DBusRepresentable>(
        _ declaration: MethodDeclaration<DBusTypes<repeat each In>, DBusTypes<repeat each Out>>, noReply: Bool = false,
        handler: @escaping @Sendable (MethodCall, repeat each In) async throws -> (repeat each Out)
    ) {
        method(declaration.name, in: repeat (each In).self, out: repeat (each Out).self,
               inputNames: declaration.inputNames, outputNames: declaration.outputNames, noReply: noReply,
               handler: handler)
    }
}

extension Connection {
    /// Calls a declared method with Swift arguments and returns its Swift results.
    ///
    /// - Throws: ``DBusError`` as ``call(destination:path:interface:member:arguments:timeout:)`` does, and
    ///   `.typeMismatch` when the reply does not have the declared output signature.
    public func call<each In: DBusRepresentable, each Out: DBusRepresentable>(
        _ declaration: MethodDeclaration<DBusTypes<repeat each In>, DBusTypes<repeat each Out>>,
        _ arguments: repeat each In, destination: BusName?, path: ObjectPath, interface: InterfaceName?,
        timeout: Duration? = nil
    ) async throws(DBusError) -> (repeat each Out) {
        let reply = try await call(destination: destination, path: path, interface: interface, member: declaration.name,
                                   arguments: declaration.arguments(repeat each arguments), timeout: timeout)
        return try declaration.results(of: reply)
    }
}
