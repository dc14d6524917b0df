import Foundation
import HandoffShared

extension HandoffEngine {
    /// Handles one scanned advertisement: opens it, drops strangers, forgeries and replays, records availability.
    func handle(_ event: ScanEvent) {
        if let name = PairingBeacon.decode(event.beacon) {
            handlePairingBeacon(name: name, event: event)
            return
        }
        guard let beacon = beaconCodec.open(event.beacon) else {
            handleOldKeyBeacon(event)
            return
        }
        guard beacon.device != trust.identity.id,
              let device = trust.devices.first(where: { $0.id == beacon.device }) else { return }
        if noteSighting(beacon, from: event) { return }   // a presence beacon: in range, no activity
        if var state = seen[beacon.device] {
            if beacon.sequence < state.sequence { return }                        // an old beacon replayed
            if beacon.sequence == state.sequence {
                let fresh = state.nonces.insert(beacon.nonce).inserted            // a rotation: same activity
                seen[beacon.device] = state
                if var remote = setAsideActivities.removeValue(forKey: beacon.device) {   // still there after a failure
                    remote.peer = event.peer
                    remote.rssi = event.rssi
                    remote.seenAt = clock.date
                    available[beacon.device] = remote
                    availability.publish(remote)
                    return
                }
                guard fresh else { return }                                       // the same beacon replayed
                available[beacon.device]?.peer = event.peer
                available[beacon.device]?.rssi = event.rssi
                return
            }
        }
        seen[beacon.device] = SeenBeacons(sequence: beacon.sequence, nonces: [beacon.nonce])
        setAsideActivities[beacon.device] = nil
        let remote = RemoteActivity(device: device, activityType: typeByTag[beacon.typeTag], sequence: beacon.sequence,
                                    peer: event.peer, rssi: event.rssi, seenAt: clock.date, typeTag: beacon.typeTag)
        available[beacon.device] = remote
        availability.publish(remote)
    }

    /// Activities trusted peers currently advertise (the newest per device).
    public func availableActivities() -> [RemoteActivity] {
        available.values.sorted { $0.seenAt > $1.seenAt }
    }

    /// A stream of new availabilities (a new activity or a new sequence of one). Ends when the engine stops.
    public func availabilityUpdates() -> AsyncStream<RemoteActivity> {
        availability.subscribe()
    }

    /// Forgets an availability (for example after the user dismissed it, or the source refused it): only a newer
    /// version of the device's activity is listed again.
    public func forget(_ remote: RemoteActivity) {
        available[remote.device.id] = nil
        setAsideActivities[remote.device.id] = nil
    }

    /// Hides an availability until its beacon is heard again, and then lists and announces it once more: for a
    /// continue that failed for want of a connection. A source that vanished stays hidden; one that is still in
    /// range (it was busy, or the link was lost) comes back with its next advertisement, so the user can try
    /// again without the source having to change anything. Hides nothing if a newer version is listed already.
    public func setAside(_ remote: RemoteActivity) {
        guard let listed = available[remote.device.id], listed.sequence == remote.sequence else { return }
        available[remote.device.id] = nil
        setAsideActivities[remote.device.id] = listed
    }
}
