/// A signal's name and its arguments' Swift types, said once and shared by the side that emits it and the side
/// that listens: its signature follows from the types, and emitting or reading it takes and gives Swift values.
///
/// ```swift
/// let greeted = SignalDeclaration("Greeted", of: String.self, argumentNames: ["name"])   // Greeted(s name)
/// greeter.signal(greeted)                                                                // for introspection
/// try bus.emitSignal(greeted, "Ada", path: "/org/handoff/greeter", interface: "org.handoff.Greeter1")
/// let name = try greeted.arguments(of: message)                                          // a listener
/// ```
public struct SignalDeclaration<each Argument: DBusRepresentable>: Sendable {
    /// The signal name.
    public let name: MemberName
    /// Argument names for introspection.
    public let argumentNames: [String]

    /// Declares a signal named `name` whose arguments have the given types, in order.
    public init(_ name: MemberName, of types: repeat (each Argument).Type, argumentNames: [String] = []) {
        self.name = name
        self.argumentNames = argumentNames
    }

    /// The arguments' signature.
    public var signature: Signature { Signature(of: repeat (each Argument).self) }

    /// The arguments as D-Bus values.
    public func values(_ arguments: repeat each Argument) -> [Value] {
        var values: [Value] = []
        for argument in repeat each arguments { values.append(argument.dbusValue) }
        return values
    }

    /// Reads a received signal's arguments (a single argument is returned as itself).
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when the message's arguments do not have this signature.
    public func arguments(of message: Message) throws(DBusError) -> (repeat each Argument) {
        try ValueReader.read(try message.arguments(), as: repeat (each Argument).self, signature: signature,
                             what: "signal '\(name)'")
    }
}

extension ExportedInterface {
    /// Declares a shared signal (for introspection; emit it with
    /// ``Connection/emitSignal(_:_:path:interface:destination:)``).
    public mutating func signal<each Argument: DBusRepresentable>(
        _ declaration: SignalDeclaration<repeat each Argument>
    ) {
        signal(declaration.name, declaration.signature, argumentNames: declaration.argumentNames)
    }
}

extension Connection {
    /// Emits a declared signal from an object path with typed arguments; with a `destination`, to that connection
    /// only (a unicast signal).
    public func emitSignal<each Argument: DBusRepresentable>(
        _ declaration: SignalDeclaration<repeat each Argument>, _ arguments: repeat each Argument,
        path: ObjectPath, interface: InterfaceName, destination: BusName? = nil
    ) throws(DBusError) {
        let values = declaration.values(repeat each arguments)
        if let destination {
            try emitSignal(path: path, interface: interface, member: declaration.name, arguments: values,
                           destination: destination)
        } else {
            try emitSignal(path: path, interface: interface, member: declaration.name, arguments: values)
        }
    }
}
