import Foundation
import HandoffClient

/// An in-memory daemon for driving the CLI's daemon commands in-process.
actor FakeService: HandoffService {
    var activities: [ActivitySummary] = []
    var contents: [ActivityID: ActivityContent] = [:]
    /// userInfo with its types, for the activities that have it (as the daemon's client gives it).
    var typedUserInfo: [ActivityID: [String: UserInfoValue]] = [:]
    var continueError: ServiceError?
    var deviceList: [DeviceInfo] = []
    var events: [ActivityEvent] = []
    private(set) var offered: [ActivityContent] = []
    private(set) var resigned: [(ActivityID, Duration)] = []
    private(set) var unpaired: [String] = []
    /// The activities continued with `--pause-source`.
    private(set) var pausedSources: [ActivityID] = []
    /// The name the pairing beacon carries: the other device's choice, up to its last byte.
    var pairingName = "laptop"

    func offer(_ content: ActivityContent, from device: String, age: Double, id: String) {
        let summary = ActivitySummary(
            id: ActivityID(rawValue: id), type: content.type, title: content.title, device: device, age: age,
            size: content.userInfo.values.reduce(0) { $0 + $1.utf8.count })
        activities.append(summary)
        contents[summary.id] = content
    }

    func setTypedUserInfo(_ values: [String: UserInfoValue], of id: String) {
        typedUserInfo[ActivityID(rawValue: id)] = values
    }

    func failContinue(with error: ServiceError) {
        continueError = error
    }

    func setPairingName(_ name: String) {
        pairingName = name
    }

    func setDevices(_ devices: [DeviceInfo]) {
        deviceList = devices
    }

    func setEvents(_ events: [ActivityEvent]) {
        self.events = events
    }

    /// What `status()` says of the adapter: hci0, on, with no address or choice (as a daemon before they were added).
    var adapter: (name: String?, address: String?, powered: Bool, choice: String?) = ("hci0", nil, true, nil)

    func setAdapter(_ name: String?, address: String?, powered: Bool, choice: String?) {
        adapter = (name, address, powered, choice)
    }

    func status() async throws -> DaemonStatus {
        var status = DaemonStatus(
            version: "9.9", adapter: adapter.name, powered: adapter.powered, pairedDevices: deviceList.count,
            availableActivities: activities.count, currentActivity: nil)
        status.adapterAddress = adapter.address
        status.adapterChoice = adapter.choice
        return status
    }

    func setCurrentActivity(_ activity: ActivityContent) async throws -> ActivityID {
        offered.append(activity)
        return ActivityID(rawValue: "current")
    }

    func updateCurrentActivity(_ id: ActivityID, with content: ActivityContent) async throws {
        offered.append(content)
    }

    func resignCurrentActivity(_ id: ActivityID, after grace: Duration) async throws {
        resigned.append((id, grace))
    }

    func availableActivities() async throws -> [ActivitySummary] {
        activities
    }

    func continueActivity(
        _ id: ActivityID, pauseSource: Bool, progress: @escaping @Sendable (ContinueProgress) -> Void
    ) async throws -> ContinuedActivity {
        if let continueError { throw continueError }
        if pauseSource { pausedSources.append(id) }
        guard let summary = activities.first(where: { $0.id == id }), let content = contents[id] else {
            throw ServiceError(.noActivity, "gone")
        }
        progress(ContinueProgress(phase: .requesting, receivedBytes: 0, totalBytes: summary.size))
        progress(ContinueProgress(phase: .finishing, receivedBytes: summary.size, totalBytes: summary.size))
        var continued = ContinuedActivity(summary: summary, content: content)
        continued.userInfoValues = typedUserInfo[id]
        return continued
    }

    func devices() async throws -> [DeviceInfo] {
        deviceList
    }

    func pair(confirm: @escaping @Sendable (PairingCode) async -> Bool) async throws -> DeviceInfo {
        let code = PairingCode(deviceName: pairingName, code: "123456")
        guard await confirm(code) else { throw ServiceError(.pairingFailed, "pairing was declined") }
        return DeviceInfo(id: "fp-laptop", name: "laptop", inRange: true, lastSeenSecondsAgo: 0)
    }

    func unpair(_ device: String) async throws {
        guard deviceList.contains(where: { $0.name == device || $0.id == device }) else {
            throw ServiceError(.unknownDevice, "no paired device '\(device)'")
        }
        unpaired.append(device)
    }

    func activityEvents() async throws -> AsyncThrowingStream<ActivityEvent, any Error> {
        let events = self.events
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish()
        }
    }
}

/// Always connects to the same fake.
struct FakeConnector: HandoffServiceConnector {
    let service: FakeService

    func connect() async throws -> any HandoffService {
        service
    }
}
