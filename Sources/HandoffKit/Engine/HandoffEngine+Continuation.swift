import FoundationEssentials
import HandoffShared

extension HandoffEngine {
    /// Continues `remote`: asks `willContinue` before any payload moves, fetches and verifies the payload, then
    /// calls the delegate's `continue`. Every failure also reaches `didFailToContinue` with the activity type.
    /// `progress` hears how far the payload has got, and over which link, from the source's first answer on,
    /// each time that changes; the outcome names the link that carried the last byte.
    public func continueActivity(_ remote: RemoteActivity, requests: ContinuationRequests = [],
                                 progress: @escaping @Sendable (ContinuationProgress) -> Void = { _ in })
        async -> ContinuationOutcome {
        let delegate = self.delegate
        let declared = declaredTypes
        let limit = configuration.maximumPayloadSize
        if let type = remote.activityType, !(delegate?.willContinue(activityType: type) ?? true) {
            return .declined(activityType: type)
        }
        let (radio, keys, configuration) = (radio, keys, configuration)
        let askedAlready = remote.activityType != nil
        // Every word from the source starts the patience again; once it has run out, nothing more reaches the
        // caller and the app is not asked.
        let quiet = QuietLimit(patience: configuration.continuationPatience, clock: clock)
        let heard: @Sendable (ContinuationProgress) -> Void = { report in
            if quiet.heard() { progress(report) }
        }
        let approve: @Sendable (String, TransferHeader) throws -> Void = { type, header in
            guard !quiet.isDecided else { throw CancellationError() }
            try declared.require(type)
            if !askedAlready, !(delegate?.willContinue(activityType: type) ?? true) {
                throw TransferClient.Declined(activityType: type)
            }
            guard header.recordSize >= 256 || header.recordCount <= 1 else {
                throw HandoffError(.corruptPayload, "the source chose records of \(header.recordSize) bytes; "
                                       + "at least 256 are required", activityType: type)
            }
            guard Int(header.payloadLength) <= limit else {
                throw HandoffError(.userInfoTooLarge, "the payload is \(header.payloadLength) bytes; this device "
                                       + "accepts at most \(limit) bytes", activityType: type)
            }
        }
        do {
            // The device's address, then, if it cannot be reached there, where its current beacon was also heard:
            // it may have rotated its address (`followingRotation`).
            let fetch = Task {
                await followingRotation(
                    from: ledger.address(of: remote), candidates: { ledger.candidates(for: remote) },
                    isFollowable: { ($0 as? HandoffError).map(AddressCandidates.worthFollowing) ?? false }
                ) { peer in
                    var target = remote
                    target.peer = peer
                    var client = TransferClient(radio: radio, keys: keys, configuration: configuration, remote: target)
                    client.requests = requests
                    return await client.attempt(approve: approve, progress: heard)
                }
            }
            guard let (outcome, moved) = await quiet.wait(for: fetch) else {
                throw HandoffError(.remoteApplicationTimedOut, "the source device did not answer for "
                                   + "\(quiet.patience.components.seconds) s", activityType: remote.activityType)
            }
            if let moved { deviceProved(remote.device.id, at: moved, sequence: remote.sequence) }
            let delivery = try outcome.get()
            let result = delivery.result
            let snapshot: ActivitySnapshot
            do throws(HandoffError) {
                snapshot = try ActivitySnapshot(payload: result.payload)
            } catch {
                throw error.about(result.activityType)
            }
            guard snapshot.activityType == result.activityType else {
                throw HandoffError(.corruptPayload, "the payload names another activity type (\(snapshot.activityType))",
                                   activityType: result.activityType)
            }
            let missing = snapshot.missingRequiredKeys
            guard missing.isEmpty else {
                throw HandoffError(.corruptPayload, "required userInfo keys are missing: \(missing.joined(separator: ", "))",
                                   activityType: result.activityType)
            }
            if snapshot.isExpired(at: clock.date) {
                throw HandoffError(.activityExpired, "the activity expired before it arrived",
                                   activityType: result.activityType)
            }
            let activity = UserActivity(snapshot: snapshot)
            let handled = delegate?.continue(activity) { restorers in
                for restorer in restorers { restorer.restoreUserActivityState(activity) }
            } ?? false
            // Only this version is used up: a newer one the device offered while the transfer ran stays listed.
            ledger.continued(remote)
            return .continued(activity, handled: handled, transport: delivery.transport)
        } catch let declined as TransferClient.Declined {
            return .declined(activityType: declined.activityType)
        } catch let error as HandoffError {
            return fail(error.about(remote.activityType), remote: remote, delegate: delegate)
        } catch {
            return fail(HandoffError(.handoffFailed, "the activity could not be continued", activityType: remote.activityType,
                                      cause: error), remote: remote, delegate: delegate)
        }
    }

    private func fail(_ error: HandoffError, remote: RemoteActivity,
                      delegate: (any ContinuationDelegate)?) -> ContinuationOutcome {
        let type = error.activityType ?? remote.activityType ?? "(unknown activity type)"
        var reported = error
        reported.activityType = type
        delegate?.didFailToContinue(activityType: type, error: reported)
        return .failed(reported)
    }
}
