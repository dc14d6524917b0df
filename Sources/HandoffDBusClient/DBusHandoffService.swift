import DBus
import HandoffClient

/// The handoff daemon reached over D-Bus: ``HandoffService`` implemented with calls to `org.handoff.Handoff1`.
///
/// ```swift
/// let service = try await DBusServiceConnector(bus: .system).connect()
/// let id = try await service.setCurrentActivity(.note(name: "groceries", title: "Groceries", content: "milk"))
/// ```
public final class DBusHandoffService: HandoffService {
    /// The connection to the daemon's bus.
    public let connection: Connection
    /// How the bus was named to the user ("the system bus", an address), for messages.
    let busDescription: String

    /// Wraps a connection to the bus the daemon is on.
    public init(connection: Connection, busDescription: String) {
        self.connection = connection
        self.busDescription = busDescription
    }

    /// Calls a method of the daemon, translating errors to ``ServiceError``.
    func call(_ member: MemberName, _ arguments: [Value] = [], timeout: Duration = .seconds(10)) async throws
        -> [Value]
    {
        do {
            return try await connection.call(
                destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
                member: member, arguments: arguments, timeout: timeout)
        } catch {
            throw ServiceErrorMapping.serviceError(error, bus: busDescription, member: member)
        }
    }

    /// Subscribes to one of the daemon's signals (sent to this connection only).
    func signals<each Argument>(_ signal: SignalDeclaration<repeat each Argument>) async throws
        -> AsyncStream<Message>
    {
        do {
            let rule = MatchRule.signal(interface: HandoffBusAPI.interface, member: signal.name)
                .sender(HandoffBusAPI.busName).path(HandoffBusAPI.objectPath)
            return try await connection.signals(matching: rule)
        } catch {
            throw ServiceErrorMapping.serviceError(error, bus: busDescription)
        }
    }

    public func status() async throws -> DaemonStatus {
        let reply = try await call(HandoffBusAPI.Method.status)
        let values = try [String: Variant](dbusValue: reply.first ?? .array(.string, []))
        func get<T: DBusRepresentable>(_ key: String, _ type: T.Type) -> T? { try? values[key]?.get(T.self) }
        let adapter = get("Adapter", String.self).flatMap { $0.isEmpty ? nil : $0 }
        let current = try values["CurrentActivity"].map { try $0.get(ActivitySummary.self) }
        var status = DaemonStatus(
            version: get("Version", String.self) ?? "?", adapter: adapter, powered: get("Powered", Bool.self) ?? false,
            pairedDevices: Int(get("PairedDevices", UInt32.self) ?? 0),
            availableActivities: Int(get("AvailableActivities", UInt32.self) ?? 0), currentActivity: current)
        status.scanning = get("Scanning", String.self)
        return status
    }

    public func setCurrentActivity(_ activity: ActivityContent) async throws -> ActivityID {
        let info = try BusCoding.propertyList(activity.userInfo)
        let reply = try await call(
            HandoffBusAPI.Method.setCurrentActivity, [.string(activity.type), .string(activity.title), .bytes(info)])
        return ActivityID(rawValue: try String(dbusValue: reply.first ?? .string("")))
    }

    public func updateCurrentActivity(_ id: ActivityID, with content: ActivityContent) async throws {
        let info = try BusCoding.propertyList(content.userInfo)
        _ = try await call(
            HandoffBusAPI.Method.updateCurrentActivity, [.string(id.rawValue), .string(content.title), .bytes(info)])
    }

    public func resignCurrentActivity(_ id: ActivityID, after grace: Duration) async throws {
        let milliseconds = max(0, grace.components.seconds) * 1000 + grace.components.attoseconds / 1_000_000_000_000_000
        _ = try await call(HandoffBusAPI.Method.resignCurrentActivity,
                           [.string(id.rawValue), .uint64(UInt64(max(0, milliseconds)))])
    }

    public func availableActivities() async throws -> [ActivitySummary] {
        let reply = try await call(HandoffBusAPI.Method.availableActivities)
        return try reply.first.map { try [ActivitySummary](dbusValue: $0) } ?? []
    }

    public func continueActivity(
        _ id: ActivityID, progress: @escaping @Sendable (ContinueProgress) -> Void
    ) async throws -> ContinuedActivity {
        let progressSignal = HandoffBusAPI.Signal.progress
        let updates = try await signals(progressSignal)
        // The daemon says `finishing` just before it replies; the bus delivers that signal before the reply, but
        // the forwarder may not have handed it on yet when the reply resumes this call. `finished` lets the call
        // wait for it, so the caller has seen every report (a progress bar ends full) when this returns.
        let (finished, finishing) = AsyncStream<Void>.makeStream()
        let forwarder = Task {
            for await message in updates {
                guard let (signalID, phaseText, received, total) = try? progressSignal.arguments(of: message),
                    signalID == id.rawValue, let phase = ContinueProgress.Phase(rawValue: phaseText)
                else { continue }
                progress(ContinueProgress(phase: phase, receivedBytes: Int(clamping: received),
                                          totalBytes: total == 0 ? nil : Int(clamping: total)))
                if phase == .finishing { finishing.finish() }
            }
            finishing.finish()
        }
        defer { forwarder.cancel() }
        let reply = try await call(HandoffBusAPI.Method.continueActivity, [.string(id.rawValue)], timeout: .seconds(120))
        // Already queued when the reply came, so this is at once; bounded for a daemon that never says it.
        let waited = Task { for await _ in finished {} }
        let limit = Task {
            try? await Task.sleep(for: .seconds(1))
            waited.cancel()
        }
        await waited.value
        limit.cancel()
        guard reply.count == 4 || reply.count == 5, case .string(let type) = reply[1], case .string(let title) = reply[2],
            case .bytes(let info) = reply[3]
        else { throw ServiceError(.failed, "the daemon answered Continue with \(reply.map(\.type))") }
        let summary = try ActivitySummary(dbusValue: reply[0])
        let path = reply.count == 5 ? try? ContinuePath(dbusValue: reply[4]) : nil
        return ContinuedActivity(
            summary: summary, content: ActivityContent(type: type, title: title, userInfo: try BusCoding.stringUserInfo(info)),
            transport: path?.transport, fallback: path?.fallback)
    }

    public func devices() async throws -> [DeviceInfo] {
        let reply = try await call(HandoffBusAPI.Method.devices)
        return try reply.first.map { try [DeviceInfo](dbusValue: $0) } ?? []
    }

    public func pair(confirm: @escaping @Sendable (PairingCode) async -> Bool) async throws -> DeviceInfo {
        let codes = try await signals(HandoffBusAPI.Signal.pairingCode)
        let connection = self.connection
        let answerer = Task {
            for await message in codes {
                guard let (name, code) = try? HandoffBusAPI.Signal.pairingCode.arguments(of: message) else { continue }
                let accepted = await confirm(PairingCode(deviceName: name, code: code))
                _ = try? await connection.call(
                    destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath,
                    interface: HandoffBusAPI.interface, member: HandoffBusAPI.Method.confirmPairing,
                    arguments: [.string(code), .boolean(accepted)])
            }
        }
        defer { answerer.cancel() }
        let reply = try await call(HandoffBusAPI.Method.pair, [.string(""), .uint32(120)], timeout: .seconds(300))
        return try DeviceInfo(dbusValue: reply.first ?? .structure([]))
    }

    public func unpair(_ device: String) async throws {
        _ = try await call(HandoffBusAPI.Method.unpair, [.string(device)])
    }

    public func activityEvents() async throws -> AsyncThrowingStream<ActivityEvent, any Error> {
        let appeared = try await signals(HandoffBusAPI.Signal.activityAppeared)
        let disappeared = try await signals(HandoffBusAPI.Signal.activityDisappeared)
        let owners: AsyncStream<Connection.NameOwnerChange>
        do {
            owners = try await connection.nameOwnerChanges(of: HandoffBusAPI.busName)
        } catch {
            throw ServiceErrorMapping.serviceError(error, bus: busDescription)
        }
        _ = try await call(HandoffBusAPI.Method.watchActivities)
        let (stream, continuation) = AsyncThrowingStream<ActivityEvent, any Error>.makeStream()
        let tasks = [
            Task {
                for await message in appeared {
                    if let event = Self.event(.appeared, HandoffBusAPI.Signal.activityAppeared, message) {
                        continuation.yield(event)
                    }
                }
                continuation.finish(throwing: ServiceError(.unreachable, "the connection to the daemon was lost"))
            },
            Task {
                for await message in disappeared {
                    if let event = Self.event(.disappeared, HandoffBusAPI.Signal.activityDisappeared, message) {
                        continuation.yield(event)
                    }
                }
            },
            Task {
                for await change in owners where change.newOwner == nil {
                    continuation.finish(throwing: ServiceError(.unreachable, "the handoff daemon stopped"))
                }
            },
        ]
        // The stream keeps the connection open for as long as someone listens, even when the caller drops this
        // service object (the CLI's `watch` does).
        let connection = self.connection
        continuation.onTermination = { _ in
            for task in tasks { task.cancel() }
            withExtendedLifetime(connection) {}
        }
        return stream
    }

    private static func event(_ kind: ActivityEvent.Kind, _ signal: SignalDeclaration<ActivitySummary>,
                              _ message: Message) -> ActivityEvent? {
        guard let summary = try? signal.arguments(of: message) else { return nil }
        return ActivityEvent(kind, summary)
    }
}
