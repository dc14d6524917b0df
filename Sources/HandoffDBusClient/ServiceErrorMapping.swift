import DBus
import HandoffClient

/// Translates what a D-Bus call to the daemon threw into the CLI's ``ServiceError``.
enum ServiceErrorMapping {
    /// The ``ServiceError`` for `error`; a ``ServiceError`` passes through. HandoffKit errors are
    /// `continueFailed` when they answer Continue (`member`), else `failed`.
    static func serviceError(_ error: any Error, bus: String, member: MemberName? = nil) -> ServiceError {
        if let error = error as? ServiceError { return error }
        guard let error = error as? DBusError else { return ServiceError(.failed, String(describing: error)) }
        let name = error.name?.rawValue ?? ""
        guard name.hasPrefix(HandoffBusAPI.errorPrefix) else {
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
            if error.code == .disconnected || error.code == .connectionFailed || error.code == .noReply {
                return ServiceError(.unreachable, "the handoff daemon is not reachable: \(error.message)")
            }
            return ServiceError(.failed, error.message, remoteCode: name.isEmpty ? nil : name)
        }
        let suffix = String(name.dropFirst(HandoffBusAPI.errorPrefix.count))
        switch suffix {
        case "AccessDenied": return ServiceError(.permissionDenied, error.message, remoteCode: name)
        case "NoActivity": return ServiceError(.noActivity, error.message, remoteCode: name)
        case "UnknownDevice": return ServiceError(.unknownDevice, error.message, remoteCode: name)
        case "PairingFailed": return ServiceError(.pairingFailed, error.message, remoteCode: name)
        case "NotCurrent", "InvalidArguments", "Failed": return ServiceError(.failed, error.message, remoteCode: name)
        default:
            // Declined, or a HandoffKit code: the message starts with "[4611 userInfoTooLarge]".
            let code: ServiceError.Code = [HandoffBusAPI.Method.continueActivity.name, HandoffBusAPI.Method.continue.name].contains(member) ? .continueFailed : .failed
            return ServiceError(code, error.message, remoteCode: name)
        }
    }
}
