import DBus
import HandoffBusContract
import HandoffClient
import HandoffShared

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
    /// Where the client's own waits read time.
    let clock: any MonotonicClock

    /// Wraps a connection to the bus the daemon is on.
    public init(connection: Connection, busDescription: String, clock: any MonotonicClock = SystemClock()) {
        self.connection = connection
        self.busDescription = busDescription
        self.clock = clock
    }

    /// Calls a method of the daemon's API with Swift arguments and returns its Swift results, translating errors to
    /// ``ServiceError``.
    func call<each In: DBusRepresentable, each Out: DBusRepresentable>(
        _ method: MethodDeclaration<DBusTypes<repeat each In>, DBusTypes<repeat each Out>>, _ arguments: repeat each In,
        timeout: Duration = .seconds(10)
    ) async throws -> (repeat each Out) {
        do {
            return try await connection.call(
                method, repeat each arguments, destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath,
                interface: HandoffBusAPI.interface, timeout: timeout)
        } catch {
            throw ServiceErrorMapping.serviceError(error, bus: busDescription, member: method.name)
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
        typealias Key = HandoffBusAPI.Status
        let values = try await call(HandoffBusAPI.Method.status)
        // A CurrentActivity of another shape is the daemon breaking its contract: say so rather than hide it.
        let current = try values[Key.currentActivity.name].map { try $0.get(ActivitySummary.self) }
        var status = DaemonStatus(
            version: values[Key.version] ?? "?", adapter: values[Key.adapter].flatMap { $0.isEmpty ? nil : $0 },
            powered: values[Key.powered] ?? false, pairedDevices: Int(values[Key.pairedDevices] ?? 0),
            availableActivities: Int(values[Key.availableActivities] ?? 0), currentActivity: current)
        status.scanning = values[Key.scanning]
        status.adapterAddress = values[Key.adapterAddress].flatMap { $0.isEmpty ? nil : $0 }
        status.adapterChoice = values[Key.adapterChoice]
        status.currentActivityApp = values[Key.currentActivityApp]
        return status
    }

    public func setCurrentActivity(_ activity: ActivityContent) async throws -> ActivityID {
        let info = try BusCoding.propertyList(activity.userInfo)
        let id = try await call(HandoffBusAPI.Method.setCurrentActivity, activity.type, activity.title, info)
        return ActivityID(rawValue: id)
    }

    public func updateCurrentActivity(_ id: ActivityID, with content: ActivityContent) async throws {
        let info = try BusCoding.propertyList(content.userInfo)
        try await call(HandoffBusAPI.Method.updateCurrentActivity, id.rawValue, content.title, info)
    }

    public func resignCurrentActivity(_ id: ActivityID, after grace: Duration) async throws {
        let milliseconds = max(0, grace.components.seconds) * 1000 + grace.components.attoseconds / 1_000_000_000_000_000
        try await call(HandoffBusAPI.Method.resignCurrentActivity, id.rawValue, UInt64(max(0, milliseconds)))
    }

    public func availableActivities() async throws -> [ActivitySummary] {
        try await call(HandoffBusAPI.Method.availableActivities)
    }

    /// How long `continueActivity` waits without a word from the daemon (a progress report or the answer): longer
    /// than the daemon's own patience with a silent source, so a daemon that is working always answers first.
    static let continueQuietLimit: Duration = .seconds(90)

    public func continueActivity(
        _ id: ActivityID, pauseSource: Bool, progress: @escaping @Sendable (ContinueProgress) -> Void
    ) async throws -> ContinuedActivity {
        let progressSignal = HandoffBusAPI.Signal.progress
        let updates = try await signals(progressSignal)
        // The daemon says `finishing` just before it replies; the bus delivers that signal before the reply, but
        // the forwarder may not have handed it on yet when the reply resumes this call. `finished` lets the call
        // wait for it, so the caller has seen every report (a progress bar ends full) when this returns.
        let (finished, finishing) = AsyncStream<Void>.makeStream()
        // No fixed timeout: a continue that keeps reporting may take as long as the radio needs. The daemon ends
        // one that hears nothing from the source for its patience (60 s by default) with an error; this gives up
        // only when the daemon itself has said nothing for longer than that.
        let quiet = QuietLimit(patience: Self.continueQuietLimit, clock: clock)
        let forwarder = Task {
            for await message in updates {
                guard let (signalID, phaseText, received, total) = try? progressSignal.arguments(of: message),
                    signalID == id.rawValue, let phase = ContinueProgress.Phase(rawValue: phaseText)
                else { continue }
                quiet.heard()
                progress(ContinueProgress(phase: phase, receivedBytes: Int(clamping: received),
                                          totalBytes: total == 0 ? nil : Int(clamping: total)))
                if phase == .finishing { finishing.finish() }
            }
            finishing.finish()
        }
        defer { forwarder.cancel() }
        var options: [String: Variant] = [:]
        if pauseSource { options[HandoffBusAPI.ContinueOption.pauseSource] = true }
        let method = HandoffBusAPI.Method.continueActivity
        let answer = Task { [options] () -> Result<[String: Variant], any Error> in
            do {
                return .success(try await call(method, id.rawValue, options, timeout: .seconds(24 * 3600)))
            } catch {
                return .failure(error)
            }
        }
        guard let values = try await quiet.wait(for: answer)?.get() else {
            throw ServiceError(.unreachable, "the handoff daemon said nothing about the continue for "
                + "\(Self.continueQuietLimit.components.seconds) s; it may still finish: see `handoff status`")
        }
        // Already queued when the reply came, so this is at once; bounded for a daemon that never says it.
        let waited = Task { for await _ in finished {} }
        let limit = Task { [clock] in
            try? await clock.sleep(for: .seconds(1))
            waited.cancel()
        }
        await waited.value
        limit.cancel()
        typealias Key = HandoffBusAPI.ContinueResult
        // The entries every version has; a missing one is the daemon breaking its contract.
        guard let summary = try values[Key.summary.name].map({ try $0.get(ActivitySummary.self) }),
              let type = values[Key.type], let info = values[Key.userInfo]
        else {
            throw ServiceError(.failed, "the daemon's ContinueActivity answer lacks Summary, Type or UserInfo")
        }
        let userInfo = try BusCoding.clientUserInfo(info)
        var continued = ContinuedActivity(
            summary: summary,
            content: ActivityContent(type: type, title: values[Key.title] ?? summary.title, userInfo: userInfo.text),
            transport: values[Key.transport], fallback: values[Key.fallback])
        continued.userInfoValues = userInfo.values
        continued.app = values[Key.app]
        return continued
    }

    public func devices() async throws -> [DeviceInfo] {
        try await call(HandoffBusAPI.Method.devices)
    }

    public func pair(confirm: @escaping @Sendable (PairingCode) async -> Bool) async throws -> DeviceInfo {
        let codes = try await signals(HandoffBusAPI.Signal.pairingCode)
        let connection = self.connection
        let answerer = Task {
            for await message in codes {
                guard let (name, code) = try? HandoffBusAPI.Signal.pairingCode.arguments(of: message) else { continue }
                let accepted = await confirm(PairingCode(deviceName: name, code: code))
                try? await connection.call(
                    HandoffBusAPI.Method.confirmPairing, code, accepted, destination: HandoffBusAPI.busName,
                    path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface)
            }
        }
        defer { answerer.cancel() }
        return try await call(HandoffBusAPI.Method.pair, "", UInt32(120), timeout: .seconds(300))
    }

    public func unpair(_ device: String) async throws {
        try await call(HandoffBusAPI.Method.unpair, device)
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
        try await call(HandoffBusAPI.Method.watchActivities)
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

extension DBusHandoffService: ActivityAppNaming {
    public func activityApps() async throws -> [String: String] {
        let types = try await call(HandoffBusAPI.Method.activityTypes)
        return types.compactMapValues { $0[HandoffBusAPI.TypeKey.app] }
    }
}
