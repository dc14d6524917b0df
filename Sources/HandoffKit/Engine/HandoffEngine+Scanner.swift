import FoundationEssentials
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
        if let announced = ledger.heard(beacon, of: device, activityType: typeByTag[beacon.typeTag], in: event,
                                        at: clock.date) {
            availability.publish(announced)
        }
    }

    /// Activities trusted peers currently advertise (the newest per device).
    public func availableActivities() -> [RemoteActivity] {
        ledger.listed
    }

    /// A stream of new availabilities (a new activity or a new sequence of one). Ends when the engine stops.
    public func availabilityUpdates() -> AsyncStream<RemoteActivity> {
        availability.subscribe()
    }

    /// Forgets an availability (for example after the user dismissed it, or the source refused it): only a newer
    /// version of the device's activity is listed again.
    package func forget(_ remote: RemoteActivity) {
        ledger.forget(remote)
    }

    /// Hides an availability until its beacon is heard again, and then lists and announces it once more: for a
    /// continue that failed for want of a connection. A source that vanished stays hidden; one that is still in
    /// range (it was busy, or the link was lost) comes back with its next advertisement, so the user can try
    /// again without the source having to change anything. Hides nothing if a newer version is listed already.
    /// The radio is asked to report the source's next advertisement even if it repeats the last
    /// (`Radio.reportNextAdvertisement(of:)`), so that nothing has to wait for the beacon's next rotation.
    package func setAside(_ remote: RemoteActivity) async {
        guard ledger.setAside(remote) else { return }
        await radio.reportNextAdvertisement(of: remote.peer)
    }
}
