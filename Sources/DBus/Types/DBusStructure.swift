/// A D-Bus structure whose fields are Swift values: `DBusStructure<String, Double>` is `(sd)`.
///
/// The field types are said once, in the generic arguments; the structure's ``dbusType``, its reading and its
/// writing follow from them. Use it to conform a type of your own that travels as a structure:
///
/// ```swift
/// extension Point: DBusRepresentable {
///     typealias Wire = DBusStructure<Int32, Int32>                 // (ii)
///     static var dbusType: DBusType { Wire.dbusType }
///     init(dbusValue: Value) throws(DBusError) { (x, y) = try Wire(dbusValue: dbusValue).fields }
///     var dbusValue: Value { Wire(x, y).dbusValue }
/// }
/// ```
public struct DBusStructure<each Field: DBusRepresentable>: DBusRepresentable {
    /// The fields, in order.
    public var fields: (repeat each Field)

    /// A structure of the given fields.
    public init(_ fields: repeat each Field) {
        self.fields = (repeat each fields)
    }

    /// `(…)` of the fields' types, in order.
    public static var dbusType: DBusType {
        var types: [DBusType] = []
        for type in repeat (each Field).self { types.append(type.dbusType) }
        return .structure(types)
    }

    /// Reads a structure with exactly these fields.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` for any other value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .structure(let values) = dbusValue, dbusValue.type == Self.dbusType else {
            throw .mismatch(dbusValue, expected: Self.dbusType)
        }
        var reader = ValueReader(values)
        // Read into a local first: assigning the expansion to `fields` directly crashed Swift 6.3.1's IRGen.
        let decoded = (repeat try reader.next((each Field).self))
        self.init(repeat each decoded)
    }

    /// The fields as `.structure`.
    public var dbusValue: Value {
        var values: [Value] = []
        for field in repeat each fields { values.append(field.dbusValue) }
        return .structure(values)
    }
}

/// Reads values in order, each as a Swift type: a structure's fields, or a method call's arguments.
struct ValueReader {
    private let values: [Value]
    private var index = 0

    init(_ values: [Value]) {
        self.values = values
    }

    /// The next value as `T`.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when it has another type, `.invalidValue` when none is left.
    mutating func next<T: DBusRepresentable>(_ type: T.Type) throws(DBusError) -> T {
        guard index < values.count else {
            throw DBusError(.invalidValue, "value \(index) is missing (got \(values.count))")
        }
        defer { index += 1 }
        return try T(dbusValue: values[index])
    }

    /// A received message's values as the declared Swift types, once they are checked to carry exactly
    /// `signature`; `what` names them in the error ("signal 'Changed'").
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when the values have another signature.
    static func read<each T: DBusRepresentable>(
        _ values: [Value], as types: repeat (each T).Type, signature: Signature, what: @autoclosure () -> String
    ) throws(DBusError) -> (repeat each T) {
        guard values.map(\.type) == signature.types else {
            let got = Signature(types: values.map(\.type))
            throw DBusError(.typeMismatch, "\(what()) must carry '\(signature)', got '\(got)'")
        }
        var reader = ValueReader(values)
        return (repeat try reader.next((each T).self))
    }
}
