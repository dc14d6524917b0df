import BlueZ
import Foundation
import HandoffBlueZ
import HandoffKit
import HandoffTesting

let noteType = "org.handoff.note"

/// One engine on one adapter of the VM's real bluetoothd, with its own BlueZ connection (as a separate daemon
/// process would have).
struct ScenarioDevice: Sendable {
    let name: String
    let bluez: BlueZ
    let radio: BlueZRadio
    let counting: CountingRadio
    let engine: HandoffEngine
    /// The engine's `fetchWindow`, for the report.
    let fetchWindow: Int
    let delegate: RecordingContinuationDelegate

    static func make(_ name: String, adapter: String, store: TrustStore,
                     configure: (inout HandoffConfiguration) -> Void = { _ in },
                     options adjust: (inout BlueZRadioOptions) -> Void = { _ in }) async throws -> ScenarioDevice {
        let debug = ProcessInfo.processInfo.environment["HANDOFF_RADIO_DEBUG"] == "1"
        var bluezLog: BlueZLog?
        if debug {
            let prefix = "[\(name)] bluez: "
            bluezLog = { text in say(prefix + text) }
        }
        let bluez = try await BlueZ.connect(bus: .system, log: bluezLog)
        var options = BlueZRadioOptions()
        if debug { options.log = { say("[\(name)] \($0)") } }
        // bluezoo reports discoverable advertisements only; set this to smoke-test scenarios on its bus.
        options.discoverable = ProcessInfo.processInfo.environment["HANDOFF_RADIO_DISCOVERABLE"] == "1"
        options.discoveryRefresh = .seconds(3)       // btvirt reports an advertiser only when scanning starts
        // HANDOFF_TRANSPORT=gatt|l2cap|auto: the path under test (the GATT scenarios force gatt).
        if let transport = try BlueZRadioOptions.Transport.fromEnvironment(ProcessInfo.processInfo.environment) {
            options.transport = transport
        }
        // HANDOFF_CONNECT_NUDGE=0 (or milliseconds): the connect nudge off, for the benches' comparison.
        try options.setConnectNudge(fromEnvironment: ProcessInfo.processInfo.environment)
        adjust(&options)
        let radio = try await BlueZRadio(adapter: adapter, bluez: bluez, options: options)
        let counting = CountingRadio(radio)
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        configuration.beaconRotationInterval = nil
        configuration.maximumPayloadSize = 2 << 20
        // A measuring knob: HANDOFF_FETCH_WINDOW=0 is the old ask-for-everything behaviour, for comparison.
        if let window = ProcessInfo.processInfo.environment["HANDOFF_FETCH_WINDOW"].flatMap(Int.init) {
            configuration.fetchWindow = window
        }
        configure(&configuration)
        let delegate = RecordingContinuationDelegate()
        let engine = try HandoffEngine(configuration: configuration, trust: store, radio: counting, delegate: delegate)
        try await engine.start()
        return ScenarioDevice(name: name, bluez: bluez, radio: radio, counting: counting, engine: engine,
                              fetchWindow: configuration.fetchWindow, delegate: delegate)
    }

    func shutDown() async {
        await engine.stop()
        await radio.close()
        await bluez.close()
    }
}

/// A trusted source on hci0 and target on hci1.
func trustedPair(configure: (inout HandoffConfiguration) -> Void = { _ in },
                 source adjustSource: (inout BlueZRadioOptions) -> Void = { _ in },
                 target adjust: (inout BlueZRadioOptions) -> Void = { _ in }) async throws
    -> (source: ScenarioDevice, target: ScenarioDevice) {
    let stores = try HandoffFixtures.pairedStores(["laptop", "desktop"])
    let source = try await ScenarioDevice.make("laptop", adapter: "hci0", store: stores[0], configure: configure,
                                               options: adjustSource)
    let target = try await ScenarioDevice.make("desktop", adapter: "hci1", store: stores[1], configure: configure,
                                               options: adjust)
    return (source, target)
}

/// A payload of `count` bytes that is not all zeros.
func blob(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}

/// Makes a note carrying `bytes` of data current on `source`; returns it and what `target` discovered.
func offerNote(bytes: Int, from source: ScenarioDevice, to target: ScenarioDevice) async throws
    -> (UserActivity, RemoteActivity) {
    let updates = await target.engine.availabilityUpdates()
    let activity = UserActivity(activityType: noteType)
    activity.title = "Groceries"
    activity.userInfo = bytes == 0 ? [:] : ["content": "milk, eggs", "blob": .data(blob(bytes))]
    try await activity.becomeCurrent(in: source.engine)
    let remote = try await first(updates, "availability of the note on \(target.name)")
    try expect(remote.activityType == noteType, "the beacon decoded to \(remote.activityType ?? "nil")")
    return (activity, remote)
}

extension ContinuationOutcome {
    var activity: UserActivity? {
        if case .continued(let activity, _, _) = self { activity } else { nil }
    }

    var error: HandoffError? {
        if case .failed(let error) = self { error } else { nil }
    }
}
