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
                if state.nonces.contains(beacon.nonce) { return }                 // the same beacon replayed
                state.nonces.insert(beacon.nonce)                                 // a rotation: same activity
                seen[beacon.device] = state
                available[beacon.device]?.peer = event.peer
                available[beacon.device]?.rssi = event.rssi
                return
            }
        }
        seen[beacon.device] = SeenBeacons(sequence: beacon.sequence, nonces: [beacon.nonce])
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

    /// Forgets an availability (for example after the user dismissed it).
    public func forget(_ remote: RemoteActivity) {
        available[remote.device.id] = nil
    }
}
