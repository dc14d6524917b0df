/// Anything that describes one parameter of a command: ``Option``, ``Flag``, ``Argument`` or a bare ``Parameter``.
public protocol ParameterConvertible: Sendable {
    /// The type-erased description.
    var parameter: Parameter { get }
}

extension Parameter: ParameterConvertible {
    /// Itself.
    public var parameter: Parameter { self }
}

extension Option: ParameterConvertible {}
extension Flag: ParameterConvertible {}
extension Argument: ParameterConvertible {}
