/// What an exported method's handler receives: the decoded arguments and who called.
public struct MethodCall: Sendable {
    /// The whole call message (headers, flags).
    public let message: Message
    /// The arguments, already checked against the method's input signature.
    public let arguments: [Value]

    /// The caller's unique name, e.g. `:1.7`. Pass it to ``Connection/unixUser(ofSender:)`` to learn the user.
    public var sender: BusName? { message.sender }
    /// The object path the call was sent to.
    public var path: ObjectPath? { message.path }
    /// The method name.
    public var member: MemberName? { message.member }

    /// Argument `index` converted to `T`.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` (sent back as `InvalidArgs`) when it has another type, or
    ///   `.invalidValue` when there are fewer arguments.
    public func argument<T: DBusRepresentable>(_ index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
        guard index < arguments.count else {
            throw DBusError(.invalidValue, "argument \(index) is missing (got \(arguments.count))")
        }
        return try T(dbusValue: arguments[index])
    }
}
