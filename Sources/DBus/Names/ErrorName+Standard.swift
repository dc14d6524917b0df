extension ErrorName {
    /// `org.freedesktop.DBus.Error.Failed`: a generic failure.
    public static let failed = ErrorName(trusted: "org.freedesktop.DBus.Error.Failed")
    /// `org.freedesktop.DBus.Error.NoMemory`.
    public static let noMemory = ErrorName(trusted: "org.freedesktop.DBus.Error.NoMemory")
    /// `org.freedesktop.DBus.Error.ServiceUnknown`: no connection owns the destination name.
    public static let serviceUnknown = ErrorName(trusted: "org.freedesktop.DBus.Error.ServiceUnknown")
    /// `org.freedesktop.DBus.Error.NameHasNoOwner`.
    public static let nameHasNoOwner = ErrorName(trusted: "org.freedesktop.DBus.Error.NameHasNoOwner")
    /// `org.freedesktop.DBus.Error.NoReply`: the call timed out, or the peer left without replying.
    public static let noReply = ErrorName(trusted: "org.freedesktop.DBus.Error.NoReply")
    /// `org.freedesktop.DBus.Error.IOError`.
    public static let ioError = ErrorName(trusted: "org.freedesktop.DBus.Error.IOError")
    /// `org.freedesktop.DBus.Error.BadAddress`.
    public static let badAddress = ErrorName(trusted: "org.freedesktop.DBus.Error.BadAddress")
    /// `org.freedesktop.DBus.Error.NotSupported`.
    public static let notSupported = ErrorName(trusted: "org.freedesktop.DBus.Error.NotSupported")
    /// `org.freedesktop.DBus.Error.LimitsExceeded`.
    public static let limitsExceeded = ErrorName(trusted: "org.freedesktop.DBus.Error.LimitsExceeded")
    /// `org.freedesktop.DBus.Error.AccessDenied`: the bus policy or the service refused.
    public static let accessDenied = ErrorName(trusted: "org.freedesktop.DBus.Error.AccessDenied")
    /// `org.freedesktop.DBus.Error.AuthFailed`.
    public static let authFailed = ErrorName(trusted: "org.freedesktop.DBus.Error.AuthFailed")
    /// `org.freedesktop.DBus.Error.Timeout`.
    public static let timeout = ErrorName(trusted: "org.freedesktop.DBus.Error.Timeout")
    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is closed.
    public static let disconnected = ErrorName(trusted: "org.freedesktop.DBus.Error.Disconnected")
    /// `org.freedesktop.DBus.Error.InvalidArgs`: the arguments did not match the method's signature or rules.
    public static let invalidArgs = ErrorName(trusted: "org.freedesktop.DBus.Error.InvalidArgs")
    /// `org.freedesktop.DBus.Error.UnknownMethod`.
    public static let unknownMethod = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownMethod")
    /// `org.freedesktop.DBus.Error.UnknownObject`: nothing is exported at the path.
    public static let unknownObject = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownObject")
    /// `org.freedesktop.DBus.Error.UnknownInterface`: the object does not implement the interface.
    public static let unknownInterface = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownInterface")
    /// `org.freedesktop.DBus.Error.UnknownProperty`.
    public static let unknownProperty = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownProperty")
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`.
    public static let propertyReadOnly = ErrorName(trusted: "org.freedesktop.DBus.Error.PropertyReadOnly")
    /// `org.freedesktop.DBus.Error.MatchRuleInvalid`.
    public static let matchRuleInvalid = ErrorName(trusted: "org.freedesktop.DBus.Error.MatchRuleInvalid")
    /// `org.freedesktop.DBus.Error.InconsistentMessage`.
    public static let inconsistentMessage = ErrorName(trusted: "org.freedesktop.DBus.Error.InconsistentMessage")
    /// `org.freedesktop.DBus.Error.UnixProcessIdUnknown`.
    public static let unixProcessIdUnknown = ErrorName(trusted: "org.freedesktop.DBus.Error.UnixProcessIdUnknown")
}
