import HandoffShared

/// An error from the BlueZ layer: what went wrong (``code``), in words (``message``), and where it came from.
///
/// Remote errors keep BlueZ's own error name (``name``), so nothing is lost in translation. GATT errors that
/// bluetoothd reports as "Operation failed with ATT error: 0x0e" become ``Code/att(_:)`` codes, as bleak's
/// `assert_gatt_reply` does.
public struct BlueZError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members (`error.code == .notPermitted`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case bluez(String)
            case att(UInt8)
            case unavailable(UnavailableReason)
            case timeout
            case malformedReply
            case bus
            case invalidInput
        }
        fileprivate let kind: Kind

        /// A BlueZ error by its short name (`NotPermitted` for `org.bluez.Error.NotPermitted`).
        public static func bluez(_ shortName: String) -> Code { Code(kind: .bluez(shortName)) }
        /// An ATT protocol error reported by the remote GATT server.
        public static func att(_ code: ATTErrorCode) -> Code { Code(kind: .att(code.rawValue)) }
        /// BlueZ (or what we need from it) is not there.
        public static func unavailable(_ reason: UnavailableReason) -> Code { Code(kind: .unavailable(reason)) }

        /// `org.bluez.Error.Failed`: generic failure; the message says more.
        public static let failed = bluez("Failed")
        /// `org.bluez.Error.InProgress`.
        public static let inProgress = bluez("InProgress")
        /// `org.bluez.Error.NotPermitted`: e.g. no advertising instance left, or a GATT permission.
        public static let notPermitted = bluez("NotPermitted")
        /// `org.bluez.Error.NotAuthorized`.
        public static let notAuthorized = bluez("NotAuthorized")
        /// `org.bluez.Error.InvalidArguments`.
        public static let invalidArguments = bluez("InvalidArguments")
        /// `org.bluez.Error.InvalidLength`: the advertisement does not fit (see MaxAdvLen).
        public static let invalidLength = bluez("InvalidLength")
        /// `org.bluez.Error.InvalidOffset`.
        public static let invalidOffset = bluez("InvalidOffset")
        /// `org.bluez.Error.InvalidValueLength`.
        public static let invalidValueLength = bluez("InvalidValueLength")
        /// `org.bluez.Error.NotSupported`.
        public static let notSupported = bluez("NotSupported")
        /// `org.bluez.Error.NotReady`: typically the adapter is powered off.
        public static let notReady = bluez("NotReady")
        /// `org.bluez.Error.NotConnected`.
        public static let notConnected = bluez("NotConnected")
        /// `org.bluez.Error.AlreadyConnected`.
        public static let alreadyConnected = bluez("AlreadyConnected")
        /// `org.bluez.Error.AlreadyExists`: e.g. the same advertisement path registered twice.
        public static let alreadyExists = bluez("AlreadyExists")
        /// `org.bluez.Error.DoesNotExist`.
        public static let doesNotExist = bluez("DoesNotExist")
        /// `org.bluez.Error.NotAvailable`.
        public static let notAvailable = bluez("NotAvailable")
        /// `org.bluez.Error.AuthenticationFailed`.
        public static let authenticationFailed = bluez("AuthenticationFailed")
        /// `org.bluez.Error.AuthenticationCanceled`.
        public static let authenticationCanceled = bluez("AuthenticationCanceled")
        /// `org.bluez.Error.AuthenticationRejected`.
        public static let authenticationRejected = bluez("AuthenticationRejected")
        /// `org.bluez.Error.AuthenticationTimeout`.
        public static let authenticationTimeout = bluez("AuthenticationTimeout")
        /// `org.bluez.Error.ConnectionAttemptFailed`.
        public static let connectionAttemptFailed = bluez("ConnectionAttemptFailed")
        /// `org.bluez.Error.Rejected` (an agent's answer).
        public static let rejected = bluez("Rejected")
        /// `org.bluez.Error.Canceled` (an agent's answer).
        public static let canceled = bluez("Canceled")
        /// A wait (for ServicesResolved, a device, a value) ran out of time.
        public static let timeout = Code(kind: .timeout)
        /// BlueZ answered with something of the wrong shape.
        public static let malformedReply = Code(kind: .malformedReply)
        /// The D-Bus layer failed below us (disconnected, no reply, …); see ``BlueZError/cause``.
        public static let bus = Code(kind: .bus)
        /// The caller handed us something BlueZ cannot take (bad UUID, value too long, …).
        public static let invalidInput = Code(kind: .invalidInput)

        /// The D-Bus error name we send for this code when we answer BlueZ (server side), if it has one.
        public var errorName: String? {
            if case .bluez(let short) = kind { return BlueZNames.errorPrefix + short }
            return nil
        }

        /// The ATT code, for ``att(_:)`` codes.
        public var attCode: ATTErrorCode? {
            if case .att(let raw) = kind { return ATTErrorCode(rawValue: raw) }
            return nil
        }

        /// Readable name (`NotPermitted`, `att(0x0e)`, `unavailable(noBlueZ)`).
        public var description: String {
            switch kind {
            case .bluez(let short): short
            case .att(let raw): "att(\(ATTErrorCode(rawValue: raw)))"
            case .unavailable(let reason): "unavailable(\(reason))"
            case .timeout: "timeout"
            case .malformedReply: "malformedReply"
            case .bus: "bus"
            case .invalidInput: "invalidInput"
            }
        }
    }

    /// Why Bluetooth is not available to us.
    public struct UnavailableReason: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        /// Nobody owns `org.bluez` on the bus (bluetoothd not running).
        public static let noBlueZ = UnavailableReason("noBlueZ")
        /// bluetoothd runs but has no adapter (or not the one asked for).
        public static let noAdapter = UnavailableReason("noAdapter")
        /// The adapter is powered off and could not be powered on.
        public static let poweredOff = UnavailableReason("poweredOff")
        /// The adapter lacks LEAdvertisingManager1 or GattManager1.
        public static let noLESupport = UnavailableReason("noLESupport")
        /// The device is gone from BlueZ's object tree.
        public static let deviceGone = UnavailableReason("deviceGone")
        /// The name.
        public var description: String { raw }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence for a human.
    public let message: String
    /// The remote D-Bus error name, when BlueZ sent one.
    public let name: String?
    /// The lower-layer error, if any (a DBusError, usually).
    public let cause: (any Error & Sendable)?

    /// Builds an error.
    public init(_ code: Code, _ message: String, name: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.name = name
        self.cause = cause
    }

    /// `NotPermitted: No free advertising instance (org.bluez.Error.NotPermitted)`.
    public var description: String {
        var text = "\(code): \(message)"
        if let name, code.errorName != name { text += " (\(name))" }
        if let cause { text += " [cause: \(cause)]" }
        return text
    }
}

extension BlueZError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: name ?? "BlueZError.\(code)", message: message) }
}
