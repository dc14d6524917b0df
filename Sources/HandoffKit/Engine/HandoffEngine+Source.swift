import FoundationEssentials

extension HandoffEngine {
    /// Makes `activity` current: validates it, checks the payload limit, then advertises its beacon.
    func makeCurrent(_ activity: UserActivity) async throws(HandoffError) {
        let type = activity.activityType
        guard activity.isValid else {
            throw HandoffError(.invalidActivity, "the activity was invalidated and cannot become current again",
                               activityType: type)
        }
        try declaredTypes.require(type)
        try checkAdvertisable(activity.snapshot)
        if let previous = current, previous !== activity {
            previous.setChangeObserver(nil)
        }
        current = activity
        currentTag = keys.typeTag(for: type)
        sequences.stopServing()
        activity.setChangeObserver { [weak self, weak activity] in
            guard let self, let activity else { return }
            Task { await self.activityDidChange(activity) }
        }
        try await advertiseCurrent()
        startRotation()
    }

    /// Stops offering `activity` if it is current.
    func resign(_ activity: UserActivity) async {
        guard current === activity else { return }
        activity.setChangeObserver(nil)
        current = nil
        sequences.stopServing()
        rotationTask?.cancel()
        rotationTask = nil
        await advertiseIdle()
    }

    /// Re-advertises after a change to the current activity, or withdraws it if it is no longer advertisable.
    func activityDidChange(_ activity: UserActivity) async {
        guard current === activity else { return }
        let snapshot = activity.snapshot
        do throws(HandoffError) {
            try checkAdvertisable(snapshot)
            try await advertiseCurrent()
        } catch {
            await radio.stopAdvertising()
            activity.delegate?.userActivity(activity, didFailToAdvertise: error.about(activity.activityType))
        }
    }

    /// Re-seals the current beacon with a fresh nonce (same sequence), so it looks new to strangers.
    package func rotateBeacon() async throws(HandoffError) {
        guard let current, let sequence = lastSequence else { return }
        try checkAdvertisable(current.snapshot)
        try await send(sequence: sequence)
    }

    /// Throws unless the activity may be advertised now: eligible, not expired, payload within the limit.
    func checkAdvertisable(_ snapshot: ActivitySnapshot) throws(HandoffError) {
        let type = snapshot.activityType
        guard snapshot.isEligibleForHandoff else {
            throw HandoffError(.handoffFailed, "the activity is not eligible for Handoff (isEligibleForHandoff is false)",
                               activityType: type)
        }
        if snapshot.isExpired(at: clock.date) {
            throw HandoffError(.activityExpired, "the activity expired at \(snapshot.expirationDate.map { "\($0)" } ?? "?")",
                               activityType: type)
        }
        let size = try snapshot.encodedPayload().count
        guard size <= configuration.maximumPayloadSize else {
            throw HandoffError(.userInfoTooLarge, "the payload is \(size) bytes; the limit is "
                                   + "\(configuration.maximumPayloadSize) bytes", activityType: type)
        }
    }

    /// Advertises the current activity under a new sequence number.
    func advertiseCurrent() async throws(HandoffError) {
        try await send(sequence: sequences.take(serving: true))
    }

    private func send(sequence: UInt32) async throws(HandoffError) {
        // In pairing mode the pairing beacon owns the advertisement; leaving pairing mode re-advertises.
        guard pairingInbox == nil else { return }
        let beacon = beaconCodec.seal(device: trust.identity.id, typeTag: currentTag, sequence: sequence)
        do {
            try await radio.advertise(beacon)
        } catch {
            throw HandoffError(.radioFailure, "the radio refused the advertisement",
                               activityType: current?.activityType, cause: error)
        }
    }

    private func startRotation() {
        rotationTask?.cancel()
        guard let interval = configuration.beaconRotationInterval else { return }
        rotationTask = Task { [weak self, clock] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                try? await self?.rotateBeacon()
            }
        }
    }
}
