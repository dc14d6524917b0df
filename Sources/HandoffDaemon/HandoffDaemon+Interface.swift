import DBus
import HandoffBusContract
import HandoffClient
import HandoffKit

/// The `org.handoff.Handoff1` interface: each method finds out who is calling, passes the gate
/// (``admit(_:to:_:)``) with the access it declares, then runs the daemon's logic.
extension HandoffDaemon {
    func makeInterface() -> ExportedInterface {
        var interface = ExportedInterface(HandoffBusAPI.interface)
        method(&interface, HandoffBusAPI.Method.status, .anyone) { daemon, _, uid in
            await daemon.status(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.setCurrentActivity, .owner) { daemon, call, uid, type, title, userInfo in
            let sender = try Self.sender(call)
            let process = await daemon.callers.processName(of: sender)
            return try await daemon.setCurrentActivity(uid: uid, type: type, title: title, userInfo: userInfo,
                                                       process: process, sender: sender)
        }
        method(&interface, HandoffBusAPI.Method.updateCurrentActivity, .owner) { daemon, _, uid, id, title, userInfo in
            try await daemon.updateCurrentActivity(uid: uid, id: id, title: title, userInfo: userInfo)
        }
        method(&interface, HandoffBusAPI.Method.resignCurrentActivity, .owner) { daemon, _, uid, id, grace in
            try await daemon.resignCurrentActivity(uid: uid, id: id, milliseconds: grace)
        }
        method(&interface, HandoffBusAPI.Method.availableActivities, .owner) { daemon, _, uid in
            try await daemon.availableActivities(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.watchActivities, .owner) { daemon, call, uid in
            try await daemon.watchActivities(sender: try Self.sender(call), uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.continue, .owner) { daemon, call, uid, id in
            let (result, activity, payload, _) = try await daemon.continueActivity(
                id: id, sender: try Self.sender(call), uid: uid)
            return (result, activity.activityType, activity.title ?? "", payload)
        }
        method(&interface, HandoffBusAPI.Method.continueActivity, .owner) { daemon, call, uid, id, options in
            let requests: ContinuationRequests = options[HandoffBusAPI.ContinueOption.pauseSource] == true
                ? .pauseSource : []
            let (result, activity, payload, transport) = try await daemon.continueActivity(
                id: id, sender: try Self.sender(call), uid: uid, requests: requests)
            typealias Key = HandoffBusAPI.ContinueResult
            var values: [String: Variant] = [:]
            values[Key.summary] = result
            values[Key.type] = activity.activityType
            values[Key.title] = activity.title ?? ""
            values[Key.userInfo] = payload
            values[Key.userInfoValues] = BusCoding.values(activity.userInfo)
            values[Key.transport] = transport.kind.rawValue
            values[Key.fallback] = transport.fallback?.rawValue
            values[Key.app] = await daemon.declaredApps[activity.activityType]
            return values
        }
        method(&interface, HandoffBusAPI.Method.devices, .owner) { daemon, _, uid in
            try await daemon.devices(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.pair, .claim) { daemon, call, uid, name, timeout in
            let role: PairingRole = name.isEmpty ? .automatic : .initiate(name)
            return try await daemon.pair(role: role, timeout: Self.timeout(timeout), sender: try Self.sender(call),
                                         uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.acceptPairing, .claim) { daemon, call, uid, timeout in
            try await daemon.pair(role: .accept, timeout: Self.timeout(timeout), sender: try Self.sender(call), uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.confirmPairing, .owner) { daemon, _, uid, code, accept in
            try await daemon.confirmPairing(code: code, accept: accept, uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.unpair, .owner) { daemon, _, uid, device in
            try await daemon.unpair(device, uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.declareActivityType, .owner) { daemon, _, uid, type, options in
            try await daemon.declareActivityType(type, app: options[HandoffBusAPI.TypeKey.app], uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.activityTypes, .owner) { daemon, _, _ in
            await daemon.activityTypes()
        }
        interface.signal(HandoffBusAPI.Signal.activityAppeared)
        interface.signal(HandoffBusAPI.Signal.activityDisappeared)
        interface.signal(HandoffBusAPI.Signal.progress)
        interface.signal(HandoffBusAPI.Signal.pairingCode)
        interface.signal(HandoffBusAPI.Signal.currentActivityContinued)
        addShareMethods(&interface)
        return interface
    }

    /// Exports a method of the shared API (``HandoffBusAPI/Method``; its signatures and names come from the
    /// declaration) that asks `access` of its callers. The body runs only once the gate let the caller in, and gets
    /// the daemon, the call, the caller's uid and the arguments; its errors become `org.handoff.Error.*` replies.
    func method<each Input: DBusRepresentable, each Output: DBusRepresentable>(
        _ interface: inout ExportedInterface,
        _ declaration: MethodDeclaration<DBusTypes<repeat each Input>, DBusTypes<repeat each Output>>,
        _ access: Access,
        body: @escaping @Sendable (HandoffDaemon, MethodCall, UInt32, repeat each Input) async throws
            -> (repeat each Output)
    ) {
        interface.method(declaration) { [weak self] (call: MethodCall, arguments: repeat each Input) in
            guard let self else { throw DBusError(name: HandoffBusError.failed, message: "the daemon is stopping") }
            do {
                let uid = try await self.callers.unixUser(of: try Self.sender(call))
                try await self.admit(uid, to: access, declaration.name.rawValue)
                return try await body(self, call, uid, repeat each arguments)
            } catch let error as DaemonError {
                throw error.dbusError
            } catch let error as HandoffError {
                throw DaemonError(error).dbusError
            }
        }
    }

    static func sender(_ call: MethodCall) throws -> BusName {
        guard let sender = call.sender else { throw DaemonError.accessDenied("the call has no sender") }
        return sender
    }

    private static func timeout(_ seconds: UInt32) -> Duration {
        .seconds(Int64(seconds == 0 ? 120 : min(seconds, 600)))
    }
}
