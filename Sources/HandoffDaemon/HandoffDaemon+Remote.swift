import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

/// Activities other devices offer: the list, the watchers' signals, continuing one.
extension HandoffDaemon {
    /// The API's id of an availability: the device's id and the beacon's sequence.
    nonisolated static func activityID(_ remote: RemoteActivity) -> String {
        "\(remote.device.id.uuidString)-\(remote.sequence)"
    }

    /// The summary of an availability. A beacon carries no title or size (protocol.md §2: nothing readable by
    /// strangers, and only 24 bytes), so the title is empty until the activity is continued and size is 0.
    func summary(_ remote: RemoteActivity) -> ActivitySummary {
        let id = Self.activityID(remote)
        return ActivitySummary(
            id: ActivityID(rawValue: id), type: remote.activityType ?? "(undeclared type)", title: titles[id] ?? "",
            device: remote.device.name, age: max(0, clock.date.timeIntervalSince(remote.seenAt)), size: 0)
    }

    /// Activities nearby trusted devices offer, freshest first.
    func availableActivities(uid: UInt32) async throws -> [ActivitySummary] {
        return await engine.availableActivities().map(summary)
    }

    /// Sends ActivityAppeared/ActivityDisappeared to `sender` from now on, until it leaves the bus.
    func watchActivities(sender: BusName, uid: UInt32) async throws {
        guard watchers[sender] == nil else { return }
        let departures = try await connection.nameOwnerChanges(of: sender)
        let task = Task { [weak self] in
            for await change in departures where change.newOwner == nil {
                await self?.removeWatcher(sender)
                return
            }
        }
        watchers[sender] = Watcher(uid: uid, task: task)
    }

    private func removeWatcher(_ sender: BusName) {
        watchers.removeValue(forKey: sender)?.task.cancel()
    }

    /// A new availability from the engine: tell the owner's watchers and the desktop.
    func announce(_ remote: RemoteActivity) async {
        lastSeen[remote.device.id] = remote.seenAt
        let summary = summary(remote)
        announced[remote.device.id] = summary
        logger.log("\(summary.type) available from '\(summary.device)' (\(summary.id))")
        emit(HandoffBusAPI.Signal.activityAppeared, summary)
        await notifier?.notify(summary)
    }

    /// Tells the owner's watchers that the device's activity is gone.
    func withdraw(device: UUID) {
        guard let summary = announced.removeValue(forKey: device) else { return }
        emit(HandoffBusAPI.Signal.activityDisappeared, summary)
    }

    private func emit(_ signal: SignalDeclaration<ActivitySummary>, _ summary: ActivitySummary) {
        for (name, watcher) in watchers where ownership.admits(watcher.uid) {
            do {
                try connection.emitSignal(signal, summary, path: HandoffBusAPI.objectPath,
                                          interface: HandoffBusAPI.interface, destination: name)
            } catch {
                logger.warning("cannot signal \(name): \(error.message)")
            }
        }
    }

    /// Fetches the activity `id` from its device, sending Progress signals to `sender`, and returns it with the
    /// link that carried it.
    func continueActivity(id: String, sender: BusName, uid: UInt32, requests: ContinuationRequests = []) async throws
        -> (ActivitySummary, UserActivity, [UInt8], LinkTransport)
    {
        let available = await engine.availableActivities()
        guard let remote = available.first(where: { Self.activityID($0) == id })
            ?? available.first(where: { id.hasPrefix($0.device.id.uuidString + "-") })
        else {
            throw DaemonError(HandoffBusError.noActivity, "activity \(id) is no longer available")
        }
        let connection = self.connection
        let signalID = id
        @Sendable func progress(_ phase: ContinueProgress.Phase, _ received: Int, _ total: Int) {
            try? connection.emitSignal(
                HandoffBusAPI.Signal.progress, signalID, phase.rawValue, UInt64(max(0, received)),
                UInt64(max(0, total)), path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
                destination: sender)
        }
        progress(.requesting, 0, 0)
        let started = clock.now
        let outcome = await engine.continueActivity(remote, requests: requests) { report in
            progress(.transferring, report.receivedBytes, report.totalBytes)
        }
        switch outcome {
        case .continued(let activity, _, let transport):
            // The engine decoded the payload once; userInfo goes on as the one property list the bus carries, and
            // an activity whose userInfo cannot be written is an error, never empty bytes.
            let payload: [UInt8]
            do {
                payload = try BinaryPropertyList.encode(.dictionary(activity.userInfo))
            } catch {
                throw DaemonError(HandoffError(.handoffFailed, "the continued userInfo cannot be passed on",
                                               activityType: activity.activityType, cause: error))
            }
            progress(.finishing, payload.count, payload.count)
            var result = summary(remote)
            result.title = activity.title ?? ""
            result.size = payload.count
            titles[id] = result.title
            let took = String(cFormat: "%.2f", started.duration(to: clock.now).timeInterval)
            logger.log("continued \(activity.activityType) from '\(remote.device.name)' ("
                + "\(payload.count) bytes in \(took) s over \(transport))")
            withdraw(device: remote.device.id)
            return (result, activity, payload, transport)
        case .declined(let type):
            throw DaemonError(HandoffBusError.declined, "this device declined \(type)")
        case .failed(let error):
            switch error.code {
            case .connectionUnavailable:
                await engine.setAside(remote)   // listed and announced again once its beacon is heard again
                withdraw(device: remote.device.id)
            case .handoffFailed, .activityExpired, .untrustedPeer:
                await engine.forget(remote)
                withdraw(device: remote.device.id)
            default:
                break
            }
            throw DaemonError(error)
        }
    }

    /// Paired devices, with whether each sent a new beacon recently.
    func devices(uid: UInt32) async throws -> [DeviceInfo] {
        let now = clock.date
        let window = Double(configuration.inRangeInterval.components.seconds)
        let sightings = await engine.lastSightings()   // any beacon, a presence beacon included
        return await engine.trust.devices.map { device in
            let seen = [lastSeen[device.id], sightings[device.id]].compactMap { $0 }.max()
            let age = seen.map { now.timeIntervalSince($0) }
            return DeviceInfo(id: device.id.uuidString, name: device.name, inRange: age.map { $0 <= window } ?? false,
                              lastSeenSecondsAgo: age)
        }
    }

    /// The daemon's state as the caller may see it.
    func status(uid: UInt32) async -> [String: Variant] {
        typealias Key = HandoffBusAPI.Status
        var values: [String: Variant] = [:]
        values[Key.version] = DaemonConfiguration.version
        values[Key.deviceName] = await engine.trust.identity.name
        let adapter = await configuration.adapter()
        values[Key.adapter] = adapter.name ?? ""
        values[Key.adapterAddress] = adapter.address ?? ""
        values[Key.powered] = adapter.name != nil && adapter.powered
        values[Key.adapterChoice] = adapter.choice
        values[Key.owner] = ownership == .owned(uid: uid)
        values[Key.scanning] = await configuration.scanning()
        guard ownership.admits(uid) else { return values }
        values[Key.pairedDevices] = UInt32(await engine.trust.devices.count)
        values[Key.availableActivities] = UInt32(await engine.availableActivities().count)
        values[Key.currentActivity] = await currentSummary(uid: uid)
        values[Key.currentActivityApp] = currentApp(uid: uid)
        return values
    }
}
