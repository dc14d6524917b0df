import DBus

/// The errors of the daemon's D-Bus API: `org.handoff.Error.<Name>`. Errors about a continuation carry
/// HandoffKit's code in their message, which starts with `[<code> <name>]` (for example
/// `[4611 userInfoTooLarge] org.handoff.note: the payload is …`).
public enum HandoffBusError {
    /// The caller's Unix user is neither the owner of this device's trust group nor root, the daemon has no owner
    /// yet or is locked to root (paired devices, no owner record), or the activity is another user's.
    public static let accessDenied = name("AccessDenied")
    /// No available activity has that id (it was continued, replaced, or its device went away).
    public static let noActivity = name("NoActivity")
    /// The id is not the caller's current activity.
    public static let notCurrent = name("NotCurrent")
    /// No paired device has that id or name.
    public static let unknownDevice = name("UnknownDevice")
    /// An argument is malformed (a userInfo that is not a property list, an empty type).
    public static let invalidArguments = name("InvalidArguments")
    /// The receiving side declined the activity before any payload moved.
    public static let declined = name("Declined")
    /// Pairing was refused, timed out or found nobody.
    public static let pairingFailed = name("PairingFailed")
    /// The daemon could not do its job (state directory, radio).
    public static let failed = name("Failed")

    /// `org.handoff.Error.` + a HandoffKit error code's name with its first letter upper-cased
    /// (`userInfoTooLarge` → `org.handoff.Error.UserInfoTooLarge`).
    public static func name(forHandoffCode codeName: String) -> ErrorName {
        name(codeName.prefix(1).uppercased() + codeName.dropFirst())
    }

    /// `org.handoff.Error.<suffix>`; a suffix that is not a valid name element falls back to `Failed`.
    public static func name(_ suffix: String) -> ErrorName {
        ErrorName(rawValue: HandoffBusAPI.errorPrefix + suffix) ?? "org.handoff.Error.Failed"
    }
}
