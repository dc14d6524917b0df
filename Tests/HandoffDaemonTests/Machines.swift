import DBus
import DBusTestSupport
import Foundation
import HandoffBusContract
import HandoffClient
import HandoffDBusClient
import HandoffDaemon
import HandoffKit
import HandoffShared
import HandoffTesting

/// Who is calling, for tests: the real uid unless a connection was assigned another one (a second "user").
final class FakeCallers: CallerIdentifying {
    private let assigned = Locked<[BusName: UInt32]>([:])

    func assign(_ uid: UInt32, to connection: Connection) {
        assigned.withLock { $0[connection.uniqueName] = uid }
    }

    func unixUser(of sender: BusName) async throws -> UInt32 {
        assigned.withLock { $0[sender] } ?? getuid()
    }
}

/// One simulated machine: its own API bus (a private dbus-daemon), a daemon over an in-memory radio.
final class Machine: @unchecked Sendable {
    let name: String
    let bus: PrivateBus
    let radio: InMemoryRadio
    let stateDirectory: URL
    let callers = FakeCallers()
    let configure: @Sendable (inout DaemonConfiguration) -> Void
    /// Where the daemon logs (silent unless a test listens).
    let logger: DaemonLogger
    private(set) var daemon: HandoffDaemon
    private(set) var connection: Connection

    /// A machine whose daemon keeps its state in `stateDirectory` (by default a new temporary folder, removed by
    /// ``shutDown()``).
    init(name: String, ether: InMemoryEther, stateDirectory: URL? = nil, logger: DaemonLogger = .silent,
         configure: @escaping @Sendable (inout DaemonConfiguration) -> Void) async throws
    {
        self.logger = logger
        self.name = name
        bus = try PrivateBus()
        radio = ether.makeRadio(address: "sim:\(name)")
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("handoffd-test-\(name)-\(UUID().uuidString)")
        self.stateDirectory = stateDirectory ?? temporary
        self.configure = configure
        (daemon, connection) = try await Self.launch(name: name, bus: bus, radio: radio, state: self.stateDirectory,
                                                     callers: callers, logger: logger, configure: configure)
    }

    private static func launch(name: String, bus: PrivateBus, radio: InMemoryRadio, state: URL, callers: FakeCallers,
                               logger: DaemonLogger, configure: (inout DaemonConfiguration) -> Void) async throws
        -> (HandoffDaemon, Connection)
    {
        var configuration = try DaemonConfiguration(stateDirectory: state, deviceName: name, adapter: "sim0")
        configuration.handoff.stallInterval = .milliseconds(200)
        configuration.handoff.beaconRotationInterval = nil
        configure(&configuration)
        let connection = try bus.connect()
        let daemon = try await HandoffDaemon.launch(configuration: configuration, radio: radio, connection: connection,
                                                    callers: callers, logger: logger)
        try await daemon.claimName()
        return (daemon, connection)
    }

    /// Stops the daemon and starts a new one on the same bus, radio and state directory.
    func restart() async throws {
        await daemon.stop()
        // Closing returns before the bus has seen the disconnection, so the new daemon could find the name still
        // owned (seen once in CI: nameTaken). ReleaseName is answered only once the bus has let the name go.
        _ = try? await connection.releaseName(HandoffBusAPI.busName)
        connection.close()
        (daemon, connection) = try await Self.launch(name: name, bus: bus, radio: radio, state: stateDirectory,
                                                     callers: callers, logger: logger, configure: configure)
    }

    /// A client as the CLI makes it.
    func client() async throws -> any HandoffService {
        try await DBusServiceConnector(bus: .address(bus.address)).connect()
    }

    /// A client whose calls the daemon sees as coming from `uid`.
    func client(asUser uid: UInt32) throws -> DBusHandoffService {
        let connection = try bus.connect()
        callers.assign(uid, to: connection)
        return DBusHandoffService(connection: connection, busDescription: "test bus")
    }

    func shutDown() async {
        await daemon.stop()
        connection.close()
        bus.stop()
        try? FileManager.default.removeItem(at: stateDirectory)
    }
}

/// Two machines on one in-memory ether, each with its own API bus, paired through the D-Bus API or not.
struct TwoMachines {
    let ether: InMemoryEther
    let laptop: Machine
    let desktop: Machine

    static func make(
        pair: Bool = true,
        laptop configureLaptop: @escaping @Sendable (inout DaemonConfiguration) -> Void = { _ in },
        desktop configureDesktop: @escaping @Sendable (inout DaemonConfiguration) -> Void = { _ in },
        laptopLogger: DaemonLogger = .silent, desktopLogger: DaemonLogger = .silent
    ) async throws -> TwoMachines {
        let ether = InMemoryEther(seed: 7)
        let machines = TwoMachines(
            ether: ether,
            laptop: try await Machine(name: "laptop", ether: ether, logger: laptopLogger, configure: configureLaptop),
            desktop: try await Machine(name: "desktop", ether: ether, logger: desktopLogger,
                                       configure: configureDesktop))
        if pair { try await machines.pairThroughTheAPI() }
        return machines
    }

    /// Both run `Pair("")` (what `handoff pair` does) and accept the code they are shown.
    func pairThroughTheAPI() async throws {
        let laptopClient = try await laptop.client()
        let desktopClient = try await desktop.client()
        let codes = Recorder<String>()
        async let a = laptopClient.pair { code in
            codes.append(code.code)
            return true
        }
        async let b = desktopClient.pair { code in
            codes.append(code.code)
            return true
        }
        let (fromLaptop, fromDesktop) = try await (a, b)
        guard fromLaptop.name == "desktop", fromDesktop.name == "laptop" else {
            throw TestFailure("paired with the wrong devices: \(fromLaptop.name), \(fromDesktop.name)")
        }
        let shown = codes.all
        guard shown.count == 2, shown[0] == shown[1] else { throw TestFailure("the codes differ: \(shown)") }
    }

    /// The laptop offers a note with `content`; the desktop continues the first activity it lists. Returns the
    /// note offered and what arrived.
    func continueANote(_ content: String) async throws -> (offered: ActivityContent, continued: ActivityContent) {
        let note = ActivityContent.note(name: "n", title: "N", content: content)
        _ = try await laptop.client().setCurrentActivity(note)
        let desktopClient = try await desktop.client()
        let listed = try await eventually { try await desktopClient.availableActivities().first }
        let continued = try await desktopClient.continueActivity(listed.id) { _ in }
        return (note, continued.content)
    }

    func shutDown() async {
        await laptop.shutDown()
        await desktop.shutDown()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The first element of `stream` that satisfies `predicate`, or a failure after `seconds`.
func first<T: Sendable>(_ stream: AsyncThrowingStream<T, any Error>, within seconds: Double = 10,
                        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            for try await element in stream where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            throw TestFailure("nothing arrived within \(seconds) s")
        }
        return value
    }
}

/// Polls `body` until it returns a non-nil value (the in-memory ether delivers asynchronously).
func eventually<T>(within seconds: Double = 10, _ body: () async throws -> T?) async throws -> T {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let value = try await body() { return value }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("the condition did not hold within \(seconds) s")
}

/// The ``ServiceError`` `body` throws, or nil when it succeeds (or throws something else).
func serviceError(_ body: () async throws -> Void) async -> ServiceError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? ServiceError
    }
}

/// A settling pause after a `VirtualClock.advance(by:)`: long enough for the tasks it woke to run on an idle
/// machine, and a wait for nothing else (never a timeout of the code under test).
func settle() async throws {
    try await Task.sleep(for: .milliseconds(50))
}
