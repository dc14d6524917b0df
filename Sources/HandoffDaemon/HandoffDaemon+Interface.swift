import DBus
import HandoffClient
import HandoffDBusClient
import HandoffKit

/// The `org.handoff.Handoff1` interface: each method finds out who is calling, then runs the daemon's logic.
extension HandoffDaemon {
    func makeInterface() -> ExportedInterface {
        var interface = ExportedInterface(HandoffBusAPI.interface)
        let summary = HandoffBusAPI.summarySignature.rawValue
        let device = HandoffBusAPI.deviceSignature.rawValue

        method(&interface, HandoffBusAPI.Method.status, out: "a{sv}", outputNames: ["status"]) { daemon, call, uid in
            [await daemon.status(uid: uid).dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.setCurrentActivity, in: "ssay", out: "s",
               inputNames: ["type", "title", "userInfo"], outputNames: ["id"]) { daemon, call, uid in
            let id = try await daemon.setCurrentActivity(
                uid: uid, type: try call.argument(0), title: try call.argument(1), userInfo: try call.argument(2))
            return [.string(id)]
        }
        method(&interface, HandoffBusAPI.Method.updateCurrentActivity, in: "ssay",
               inputNames: ["id", "title", "userInfo"]) { daemon, call, uid in
            try await daemon.updateCurrentActivity(
                uid: uid, id: try call.argument(0), title: try call.argument(1), userInfo: try call.argument(2))
            return []
        }
        method(&interface, HandoffBusAPI.Method.resignCurrentActivity, in: "st",
               inputNames: ["id", "graceMilliseconds"]) { daemon, call, uid in
            try await daemon.resignCurrentActivity(uid: uid, id: try call.argument(0), milliseconds: try call.argument(1))
            return []
        }
        method(&interface, HandoffBusAPI.Method.availableActivities, out: Signature(stringLiteral: "a" + summary),
               outputNames: ["activities"]) { daemon, call, uid in
            [try await daemon.availableActivities(uid: uid).dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.watchActivities) { daemon, call, uid in
            try await daemon.watchActivities(sender: try Self.sender(call), uid: uid)
            return []
        }
        method(&interface, HandoffBusAPI.Method.continueActivity, in: "s",
               out: Signature(stringLiteral: summary + "ssaya{ss}"), inputNames: ["id"],
               outputNames: ["summary", "type", "title", "userInfo", "path"]) { daemon, call, uid in
            let (result, activity, payload) = try await daemon.continueActivity(
                id: try call.argument(0), sender: try Self.sender(call), uid: uid)
            let path = daemon.radio.takePath(ofContinue: try call.argument(0))
            return [result.dbusValue, .string(activity.activityType), .string(activity.title ?? ""), .bytes(payload),
                    ContinuePath(transport: path?.kind.rawValue ?? "gatt", fallback: path?.fallback?.rawValue).dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.devices, out: Signature(stringLiteral: "a" + device),
               outputNames: ["devices"]) { daemon, call, uid in
            [try await daemon.devices(uid: uid).dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.pair, in: "su", out: Signature(stringLiteral: device),
               inputNames: ["deviceName", "timeoutSeconds"], outputNames: ["device"]) { daemon, call, uid in
            let name: String = try call.argument(0)
            let role: PairingRole = name.isEmpty ? .automatic : .initiate(name)
            let info = try await daemon.pair(role: role, timeout: Self.timeout(try call.argument(1)),
                                             sender: try Self.sender(call), uid: uid)
            return [info.dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.acceptPairing, in: "u", out: Signature(stringLiteral: device),
               inputNames: ["timeoutSeconds"], outputNames: ["device"]) { daemon, call, uid in
            let info = try await daemon.pair(role: .accept, timeout: Self.timeout(try call.argument(0)),
                                             sender: try Self.sender(call), uid: uid)
            return [info.dbusValue]
        }
        method(&interface, HandoffBusAPI.Method.confirmPairing, in: "sb", inputNames: ["code", "accept"]) {
            daemon, call, uid in
            try await daemon.confirmPairing(code: try call.argument(0), accept: try call.argument(1), uid: uid)
            return []
        }
        method(&interface, HandoffBusAPI.Method.unpair, in: "s", inputNames: ["device"]) { daemon, call, uid in
            try await daemon.unpair(try call.argument(0), uid: uid)
            return []
        }
        interface.signal(HandoffBusAPI.Signal.activityAppeared, Signature(stringLiteral: summary),
                         argumentNames: ["activity"])
        interface.signal(HandoffBusAPI.Signal.activityDisappeared, Signature(stringLiteral: summary),
                         argumentNames: ["activity"])
        interface.signal(HandoffBusAPI.Signal.progress, "sstt",
                         argumentNames: ["id", "phase", "receivedBytes", "totalBytes"])
        interface.signal(HandoffBusAPI.Signal.pairingCode, "ss", argumentNames: ["deviceName", "code"])
        addShareMethods(&interface)
        return interface
    }

    /// Declares a method whose handler gets the daemon, the call and the caller's uid, and whose errors become
    /// `org.handoff.Error.*` replies.
    func method(
        _ interface: inout ExportedInterface, _ name: MemberName, in input: Signature = .empty,
        out output: Signature = .empty, inputNames: [String] = [], outputNames: [String] = [],
        _ body: @escaping @Sendable (HandoffDaemon, MethodCall, UInt32) async throws -> [Value]
    ) {
        interface.method(name, in: input, out: output, inputNames: inputNames, outputNames: outputNames) {
            [weak self] call in
            guard let self else { throw DBusError(name: HandoffBusError.failed, message: "the daemon is stopping") }
            do {
                let uid = try await self.callers.unixUser(of: try Self.sender(call))
                return try await body(self, call, uid)
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
