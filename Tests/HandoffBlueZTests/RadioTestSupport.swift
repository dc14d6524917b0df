import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Thrown when an awaited event never comes (a guard against hangs, not a timing assertion).
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// The first element of `stream` satisfying `predicate`, or `TimedOut` after a generous guard delay.
func first<T: Sendable>(_ stream: AsyncStream<T>, _ what: String, guardDelay: Duration = .seconds(30),
                        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            for await value in stream where predicate(value) { return value }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: guardDelay)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw TimedOut(what: what) }
        return value
    }
}

/// bluezoo and every BlueZ connection a test opened to it (one per would-be process); `stop()` closes them, then
/// stops bluezoo.
final class BluezooSession: Sendable {
    let fixture: BluezooFixture
    private let opened = Locked<[BlueZ]>([])

    /// Starts bluezoo with its two adapters.
    init() throws {
        fixture = try BluezooFixture()
    }

    /// A new connection to bluezoo's bus, closed by `stop()`.
    func connect() async throws -> BlueZ {
        let bluez = try await BlueZ.connect(bus: .address(fixture.address))
        opened.withLock { $0.append(bluez) }
        return bluez
    }

    /// Closes every connection `connect()` opened, then stops bluezoo.
    func stop() async {
        let connections = opened.withLock { opened in
            defer { opened = [] }
            return opened
        }
        for bluez in connections { await bluez.close() }
        fixture.stop()
    }
}

/// Runs `body` with a bluezoo of its own, then closes every connection opened to it and stops it, whether `body`
/// threw or not: the scope a test has where XCTest had an async `tearDown()`.
func withBluezoo<R>(_ body: (BluezooSession) async throws -> R) async throws -> R {
    let zoo = try BluezooSession()
    let result: Result<R, any Error>
    do { result = .success(try await body(zoo)) } catch { result = .failure(error) }
    await zoo.stop()
    return try result.get()
}

/// Runs `body` with bluezoo and a radio on each adapter, each on its own connection as two processes would be: the
/// source on hci0, the target on hci1 with `target` applied to its options. Everything stops when `body` ends.
func withRadios<R>(target: (inout BlueZRadioOptions) -> Void = { _ in },
                   _ body: (_ source: BlueZRadio, _ target: BlueZRadio, _ zoo: BluezooSession) async throws -> R)
    async throws -> R {
    try await withBluezoo { zoo in
        var options = BlueZRadioOptions()
        options.discoverable = true           // bluezoo reports discoverable advertisements only
        options.unknownPeerWait = .seconds(1)
        let a = try await zoo.connect()
        let b = try await zoo.connect()
        var targetOptions = options
        target(&targetOptions)
        let source = try await BlueZRadio(adapter: "hci0", bluez: a, options: options)
        let targetRadio = try await BlueZRadio(adapter: "hci1", bluez: b, options: targetOptions)
        return try await body(source, targetRadio, zoo)
    }
}

let noteType = "org.handoff.note"

/// One device on a bluezoo adapter: its own BlueZ connection, radio, started engine and recording delegate.
struct RadioDevice: Sendable {
    let bluez: BlueZ
    let radio: BlueZRadio
    let engine: HandoffEngine
    let delegate: RecordingContinuationDelegate
    let store: TrustStore

    /// A device on `adapter` of the bus at `address` with trust state `store`.
    static func make(adapter: String, bus address: String, store: TrustStore,
                     configure: (inout HandoffConfiguration) -> Void = { _ in }) async throws -> RadioDevice {
        let bluez = try await BlueZ.connect(bus: .address(address))
        var options = BlueZRadioOptions()
        options.discoverable = true            // bluezoo reports discoverable advertisements only
        let radio = try await BlueZRadio(adapter: adapter, bluez: bluez, options: options)
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        configuration.beaconRotationInterval = nil
        configuration.stallInterval = .seconds(2)
        configure(&configuration)
        let delegate = RecordingContinuationDelegate()
        let engine = try HandoffEngine(configuration: configuration, trust: store, radio: radio, delegate: delegate)
        try await engine.start()
        return RadioDevice(bluez: bluez, radio: radio, engine: engine, delegate: delegate, store: store)
    }

    /// Stops the engine, the radio and the connection.
    func shutDown() async {
        await engine.stop()
        await radio.close()
        await bluez.close()
    }
}

extension ContinuationOutcome {
    /// The continued activity, or nil.
    var activity: UserActivity? {
        if case .continued(let activity, _, _) = self { activity } else { nil }
    }

    /// The failure, or nil.
    var error: HandoffError? {
        if case .failed(let error) = self { error } else { nil }
    }
}

/// A payload of `count` bytes that is not all zeros.
func blob(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}
