import DBus
import HandoffBusContract
import HandoffClient
import HandoffShared

/// Translates what a D-Bus call to the daemon threw into the CLI's ``ServiceError``.
enum ServiceErrorMapping {
    /// The ``ServiceError`` for `error`; a ``ServiceError`` passes through. HandoffKit errors are
    /// `continueFailed` when they answer Continue (`member`), else `failed`.
    static func serviceError(_ error: any Error, bus: String, member: MemberName? = nil) -> ServiceError {
        if let error = error as? ServiceError { return error }
        guard let error = error as? DBusError else { return ServiceError(.failed, String(describing: error), cause: error) }
        let name = error.name?.rawValue ?? ""
        guard name.hasPrefix(HandoffBusAPI.errorPrefix) else { return otherError(error, name: name, bus: bus) }
        // The daemon's reply: its message, then a line per cause (ErrorChain.busText).
        let (message, causes) = ErrorChain.parseBusText(error.message)
        let cause = ReportedError(chain: causes)
        let suffix = String(name.dropFirst(HandoffBusAPI.errorPrefix.count))
        switch suffix {
        case "AccessDenied": return ServiceError(.permissionDenied, message, remoteCode: name, cause: cause)
        case "NoActivity": return ServiceError(.noActivity, message, remoteCode: name, cause: cause)
        case "UnknownDevice": return ServiceError(.unknownDevice, message, remoteCode: name, cause: cause)
        case "PairingFailed": return ServiceError(.pairingFailed, message, remoteCode: name, cause: cause)
        case "NotCurrent", "InvalidArguments", "Failed":
            return ServiceError(.failed, message, remoteCode: name, cause: cause)
        default:
            // Declined, or a HandoffKit code: the message starts with "[4611 userInfoTooLarge]".
            let continuing = [HandoffBusAPI.Method.continueActivity.name, HandoffBusAPI.Method.continue.name]
            let code: ServiceError.Code = member.map(continuing.contains) == true ? .continueFailed : .failed
            return ServiceError(code, message, remoteCode: name, cause: cause)
        }
    }

    /// A failure that is not the daemon's own reply: the bus's, or the connection's.
    private static func otherError(_ error: DBusError, name: String, bus: String) -> ServiceError {
        switch error.name {
        case ErrorName.serviceUnknown?, ErrorName.nameHasNoOwner?:
            return ServiceError(.unreachable, "the handoff daemon is not reachable: nobody owns "
                + "\(HandoffBusAPI.busName) on \(bus)", remoteCode: name)
        case ErrorName.accessDenied?:
            return ServiceError(.unreachable, "the handoff daemon is not reachable: the bus policy refused the "
                + "call (\(error.message))", remoteCode: name)
        default:
            break
        }
        if error.code == .noReply {
            // The daemon is there (the call reached it) but did not answer within the call's timeout: saying it is
            // not reachable would send the user after a daemon that is busy, not gone.
            return ServiceError(.unreachable, "the handoff daemon did not answer in time (\(error.message)); what "
                + "it was asked may still finish: see `handoff status`")
        }
        if error.code == .disconnected || error.code == .connectionFailed {
            return ServiceError(.unreachable, "the handoff daemon is not reachable: \(error.message)")
        }
        return ServiceError(.failed, error.message, remoteCode: name.isEmpty ? nil : name, cause: error.cause)
    }
}
