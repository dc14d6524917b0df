import DBus
import FoundationEssentials
import HandoffShared

/// Our `org.bluez.Agent1` (doc/org.bluez.Agent.rst): answers bluetoothd's pairing questions.
///
/// Each question goes to ``decide``; the default accepts confirmations and authorisations, which is what a
/// `NoInputNoOutput` device does ("Just Works"). Register with ``BlueZ/register(_:)``.
public struct Agent: Sendable {
    /// The IO capability bluetoothd plans pairing with.
    public struct Capability: RawRepresentable, Sendable, Hashable {
        /// The string RegisterAgent takes.
        public let rawValue: String
        /// Wraps a capability string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `DisplayOnly`.
        public static let displayOnly = Capability(rawValue: "DisplayOnly")
        /// `DisplayYesNo`.
        public static let displayYesNo = Capability(rawValue: "DisplayYesNo")
        /// `KeyboardOnly`.
        public static let keyboardOnly = Capability(rawValue: "KeyboardOnly")
        /// `NoInputNoOutput`.
        public static let noInputNoOutput = Capability(rawValue: "NoInputNoOutput")
        /// `KeyboardDisplay`.
        public static let keyboardDisplay = Capability(rawValue: "KeyboardDisplay")
    }

    /// A question from bluetoothd.
    public enum Request: Sendable, Equatable {
        /// RequestConfirmation: does the passkey shown on the other side match?
        case confirm(device: ObjectPath, passkey: UInt32)
        /// RequestAuthorization: may this device pair (Just Works)?
        case authorize(device: ObjectPath)
        /// AuthorizeService: may the device use this service?
        case authorizeService(device: ObjectPath, uuid: String)
        /// RequestPasskey: type the passkey shown on the other side (answer with ``Answer/passkey(_:)``).
        case passkey(device: ObjectPath)
        /// RequestPinCode (legacy pairing; answer with ``Answer/pinCode(_:)``).
        case pinCode(device: ObjectPath)
        /// DisplayPasskey / DisplayPinCode: show this to the user (the answer is ignored).
        case display(device: ObjectPath, code: String)
    }

    /// The answer to a ``Request``.
    public enum Answer: Sendable, Equatable {
        /// Yes (confirm, authorise).
        case accept
        /// No: bluetoothd gets `org.bluez.Error.Rejected`.
        case reject
        /// A passkey for ``Request/passkey(device:)``.
        case passkey(UInt32)
        /// A PIN for ``Request/pinCode(device:)``.
        case pinCode(String)
    }

    /// The capability to register with.
    public var capability: Capability
    /// Decides each request.
    public var decide: @Sendable (Request) async -> Answer

    /// An agent; by default it accepts every confirmation and authorisation.
    public init(
        capability: Capability = .noInputNoOutput,
        decide: @escaping @Sendable (Request) async -> Answer = { _ in .accept }
    ) {
        self.capability = capability
        self.decide = decide
    }

    func interface() -> ExportedInterface {
        var interface = ExportedInterface(BlueZNames.agent1)
        let decide = self.decide
        let rejected = DBusError(
            name: BlueZNames.error("Rejected"), message: "rejected")
        interface.method("Release") { _ in [] }
        interface.method("Cancel") { _ in [] }
        interface.method("RequestConfirmation", in: "ou") { call in
            let answer = await decide(.confirm(device: try call.argument(0), passkey: try call.argument(1)))
            guard answer == .accept else { throw rejected }
            return []
        }
        interface.method("RequestAuthorization", in: "o") { call in
            guard await decide(.authorize(device: try call.argument(0))) == .accept else { throw rejected }
            return []
        }
        interface.method("AuthorizeService", in: "os") { call in
            let answer = await decide(.authorizeService(device: try call.argument(0), uuid: try call.argument(1)))
            guard answer == .accept else { throw rejected }
            return []
        }
        interface.method("RequestPasskey", in: "o", out: "u") { call in
            guard case .passkey(let key) = await decide(.passkey(device: try call.argument(0))) else { throw rejected }
            return [.uint32(key)]
        }
        interface.method("RequestPinCode", in: "o", out: "s") { call in
            guard case .pinCode(let pin) = await decide(.pinCode(device: try call.argument(0))) else { throw rejected }
            return [.string(pin)]
        }
        interface.method("DisplayPasskey", in: "ouq") { call in
            let key: UInt32 = try call.argument(1)
            _ = await decide(.display(device: try call.argument(0), code: String(cFormat: "%06u", key)))
            return []
        }
        interface.method("DisplayPinCode", in: "os") { call in
            _ = await decide(.display(device: try call.argument(0), code: try call.argument(1)))
            return []
        }
        return interface
    }
}

extension BlueZ {
    /// Exports `agent` and registers it as the default agent (AgentManager1.RegisterAgent +
    /// RequestDefaultAgent). Restored when bluetoothd returns.
    /// - Returns: the agent's path; pass it to ``unregisterAgent(_:)``.
    public func register(_ agent: Agent) async throws(BlueZError) -> ObjectPath {
        let path = try exportPath("agent")
        do {
            try await connection.export([agent.interface()], at: path)
        } catch {
            throw BlueZError(.bus, "cannot export the agent: \(error.message)", cause: error)
        }
        var registration = Registration(kind: .agent(capability: agent.capability.rawValue), path: path,
                                        adapterName: "", active: false)
        do {
            try await registerWithBlueZ(registration)
        } catch {
            _ = try? connection.unexport(path)
            throw error
        }
        registration.active = true
        _ = addRegistration(registration)
        return path
    }

    /// Unregisters and unexports an agent.
    public func unregisterAgent(_ path: ObjectPath) async {
        if removeRegistration(path)?.active == true {
            _ = try? await call(BlueZNames.rootPath, BlueZNames.agentManager1,
                                "UnregisterAgent", [.objectPath(path)])
        }
        _ = try? connection.unexport(path)
    }
}
