/// One interface of an exported object: its methods, properties and signals.
///
/// ```swift
/// var greeter = ExportedInterface("org.handoff.Greeter1")
/// greeter.method("Greet", in: "s", out: "s") { call in
///     [.string("Hello, \(try call.argument(0, as: String.self))")]
/// }
/// greeter.property("Greeting", get: { "Hello" })
/// greeter.signal("Greeted", "s")
/// ```
public struct ExportedInterface: Sendable {
    /// Handles one call; returns the reply's arguments, which must match the declared output signature.
    /// Throw a ``DBusError`` with a `name` to reply with that error; any other error replies
    /// `org.freedesktop.DBus.Error.Failed`.
    public typealias Handler = @Sendable (MethodCall) async throws -> [Value]

    /// A method of the interface.
    public struct Method: Sendable {
        /// The method name.
        public let name: MemberName
        /// The input signature the caller must use.
        public let input: Signature
        /// The output signature the handler returns.
        public let output: Signature
        /// Argument names for introspection (optional, may be shorter than the signature).
        public let inputNames: [String]
        /// Result names for introspection.
        public let outputNames: [String]
        /// When true the method is annotated `org.freedesktop.DBus.Method.NoReply`: its result is ignored, and only
        /// a caller that did not set NO_REPLY_EXPECTED gets an (empty) reply, so it is not left waiting.
        public let noReply: Bool
        let handler: Handler
    }

    /// Whether a property may be read, written or both.
    public enum Access: String, Sendable {
        /// Readable only; `Set` fails with `PropertyReadOnly`.
        case read
        /// Readable and writable.
        case readWrite = "readwrite"
    }

    /// A property of the interface.
    public struct Property: Sendable {
        /// The property name.
        public let name: MemberName
        /// Its type.
        public let type: DBusType
        /// Read-only or read-write.
        public let access: Access
        let get: @Sendable () async throws -> Value
        let set: (@Sendable (Value) async throws -> Void)?
    }

    /// A signal of the interface, declared for introspection.
    public struct Signal: Sendable {
        /// The signal name.
        public let name: MemberName
        /// The signal's argument types.
        public let signature: Signature
        /// Argument names for introspection.
        public let argumentNames: [String]
    }

    /// How calls to the interface's methods are scheduled.
    public enum CallOrder: Sendable {
        /// Each call runs in its own task as soon as it arrives; calls may overlap and finish in any order.
        case concurrent
        /// Calls to this interface on one object run one at a time in arrival order (a write stream, for
        /// instance, where BlueZ's `WriteValue` calls must be applied in sequence).
        case serial
    }

    /// The interface name.
    public let name: InterfaceName
    /// How calls are scheduled.
    public let callOrder: CallOrder
    /// The methods, in declaration order.
    public private(set) var methods: [Method] = []
    /// The properties, in declaration order.
    public private(set) var properties: [Property] = []
    /// The signals, in declaration order.
    public private(set) var signals: [Signal] = []

    /// An interface with no members yet.
    public init(_ name: InterfaceName, callOrder: CallOrder = .concurrent) {
        self.name = name
        self.callOrder = callOrder
    }

    /// Declares a method. A later declaration with the same name replaces the earlier one.
    public mutating func method(
        _ name: MemberName, in input: Signature = .empty, out output: Signature = .empty,
        inputNames: [String] = [], outputNames: [String] = [], noReply: Bool = false,
        handler: @escaping Handler
    ) {
        methods.removeAll { $0.name == name }
        methods.append(
            Method(
                name: name, input: input, output: output, inputNames: inputNames, outputNames: outputNames,
                noReply: noReply, handler: handler))
    }

    /// Declares a property from untyped getter and setter; pass no setter for a read-only property.
    public mutating func property(
        _ name: MemberName, type: DBusType, get: @escaping @Sendable () async throws -> Value,
        set: (@Sendable (Value) async throws -> Void)? = nil
    ) {
        properties.removeAll { $0.name == name }
        properties.append(Property(name: name, type: type, access: set == nil ? .read : .readWrite, get: get, set: set))
    }

    /// Declares a typed property; the D-Bus type follows from `T`.
    public mutating func property<T: DBusRepresentable>(
        _ name: MemberName, get: @escaping @Sendable () async throws -> T,
        set: (@Sendable (T) async throws -> Void)? = nil
    ) {
        var setter: (@Sendable (Value) async throws -> Void)?
        if let set {
            setter = { @Sendable (value: Value) async throws in try await set(try T(dbusValue: value)) }
        }
        let getter: @Sendable () async throws -> Value = { try await get().dbusValue }
        property(name, type: T.dbusType, get: getter, set: setter)
    }

    /// Declares a signal (for introspection; emit it with ``Connection/emitSignal(path:interface:member:arguments:)``).
    public mutating func signal(_ name: MemberName, _ signature: Signature = .empty, argumentNames: [String] = []) {
        signals.removeAll { $0.name == name }
        signals.append(Signal(name: name, signature: signature, argumentNames: argumentNames))
    }

    func method(named name: MemberName) -> Method? { methods.first { $0.name == name } }
    func property(named name: MemberName) -> Property? { properties.first { $0.name == name } }

    /// Reads every property, for `GetAll` and `InterfacesAdded`.
    func allProperties() async throws -> [String: Variant] {
        var values: [String: Variant] = [:]
        for property in properties {
            values[property.name.rawValue] = Variant(try await property.get())
        }
        return values
    }
}
