import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

/// The caller's own current activity: set, update, resign.
extension HandoffDaemon {
    /// Makes a new activity current for `uid` and returns its id.
    func setCurrentActivity(uid: UInt32, type: String, title: String, userInfo: [UInt8], process: String? = nil,
                            sender: BusName? = nil) async throws -> String {
        if let offer, offer.uid != uid {
            throw DaemonError.accessDenied("another user's activity is current on this device")
        }
        let activity = try await offerAnew(uid: uid, type: type, title: title, userInfo: userInfo,
                                           what: "offer of \(type)")
        offer?.resignTask?.cancel()
        let id = UUID().uuidString
        offer = Offer(id: id, uid: uid, process: process, sender: sender, activity: activity,
                      userInfoSize: userInfo.count, resignTask: nil)
        withdrawWhenExpired(id, activity)
        logger.log("user \(uid) offers \(type) '\(title)' (\(userInfo.count) bytes of userInfo)")
        return id
    }

    /// Replaces the content of `uid`'s current activity `id` and offers it again (a new sequence); cancels a
    /// pending resignation.
    func updateCurrentActivity(uid: UInt32, id: String, title: String, userInfo: [UInt8]) async throws {
        let existing = try ownOffer(uid: uid, id: id)
        let activity = try await offerAnew(uid: uid, type: existing.activity.activityType, title: title,
                                           userInfo: userInfo, what: "update")
        offer?.resignTask?.cancel()
        offer?.resignTask = nil
        offer?.activity = activity
        offer?.userInfoSize = userInfo.count
        withdrawWhenExpired(id, activity)
    }

    /// An activity with an expiration date (a type's ``ActivityTypeRule/lifetime``) stops being offered then.
    private func withdrawWhenExpired(_ id: String, _ activity: UserActivity) {
        guard let expiration = activity.expirationDate else { return }
        let clock = self.clock
        let delay = Duration.milliseconds(Int64(max(0, expiration.timeIntervalSince(clock.date)) * 1000))
        let deadline = clock.now + delay   // from now, not from whenever the task gets to run
        offer?.resignTask = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.expire(id)
        }
    }

    /// Stops offering `uid`'s activity `id` after `milliseconds` (0: now). The timer lives here, so the caller may
    /// exit; a later update cancels it.
    func resignCurrentActivity(uid: UInt32, id: String, milliseconds: UInt64) async throws {
        _ = try ownOffer(uid: uid, id: id)
        offer?.resignTask?.cancel()
        guard milliseconds > 0 else {
            await expire(id)
            return
        }
        let delay = Duration.milliseconds(Int64(clamping: milliseconds))
        let clock = self.clock
        let deadline = clock.now + delay   // from the call, not from whenever the task gets to run
        offer?.resignTask = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.expire(id)
        }
        logger.log("user \(uid)'s activity stays available for \(milliseconds / 1000) s")
    }

    /// Resigns the activity `id` if it is still current.
    func expire(_ id: String) async {
        guard let current = offer, current.id == id else { return }
        offer = nil
        await current.activity.resignCurrent(in: engine)
        logger.log("user \(current.uid)'s activity is no longer offered")
    }

    /// A peer took the current activity: its offering connection hears it, with what the peer asked
    /// (`CurrentActivityContinued`; `PauseSource` for `handoff continue --pause-source`). The activity stays
    /// current: continuing it again elsewhere is the app's choice to allow.
    func offerWasContinued(_ activity: UserActivity, requests: ContinuationRequests) {
        guard let offer, offer.activity === activity, let sender = offer.sender else { return }
        var details: [String: Variant] = [:]
        details[HandoffBusAPI.ContinuedKey.pauseSource] = requests.contains(.pauseSource)
        do {
            try connection.emitSignal(HandoffBusAPI.Signal.currentActivityContinued, offer.id, details,
                                      path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
                                      destination: sender)
        } catch {
            logger.warning("cannot signal \(sender): \(error.message)")
        }
    }

    /// The app that offered `uid`'s current activity, for Status: the app declared for its type, else the process.
    func currentApp(uid: UInt32) -> String? {
        guard let offer, offer.uid == uid else { return nil }
        return declaredApps[offer.activity.activityType] ?? offer.process
    }

    /// Declares `type` for as long as the daemon runs (`DeclareActivityType`), with the app that handles it.
    func declareActivityType(_ type: String, app: String?, uid: UInt32) async throws {
        do {
            try await engine.declare(type)
        } catch {
            throw DaemonError.invalidArguments("cannot declare the activity type: \(error.message)")
        }
        if let app, !app.isEmpty {
            guard app.utf8.count <= 100, !app.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw DaemonError.invalidArguments("an app name is at most 100 bytes, without control characters") }
            declaredApps[type] = app
        }
        logger.log("user \(uid) declared \(type)\(app.map { " for '\($0)'" } ?? "")")
    }

    /// Every declared type, with its app and whether the daemon declares it itself.
    func activityTypes() async -> [String: [String: Variant]] {
        let builtIn = configuration.handoff.declaredTypes
        var types: [String: [String: Variant]] = [:]
        for type in await engine.declaredTypes.types {
            var entry: [String: Variant] = [:]
            entry[HandoffBusAPI.TypeKey.builtIn] = builtIn.contains(type)
            entry[HandoffBusAPI.TypeKey.app] = declaredApps[type]
            types[type] = entry
        }
        return types
    }

    /// The caller's current activity as a summary, for Status.
    func currentSummary(uid: UInt32) async -> ActivitySummary? {
        guard let offer, offer.uid == uid else { return nil }
        return ActivitySummary(id: ActivityID(rawValue: offer.id), type: offer.activity.activityType,
                               title: offer.activity.title ?? "", device: await engine.trust.identity.name, age: 0,
                               size: offer.userInfoSize)
    }

    private func ownOffer(uid: UInt32, id: String) throws -> Offer {
        guard let offer, offer.id == id else {
            throw DaemonError(HandoffBusError.notCurrent, "activity \(id) is not current (it was resigned or replaced)")
        }
        guard offer.uid == uid else { throw DaemonError.accessDenied("activity \(id) belongs to another user") }
        return offer
    }

    /// Builds the activity and makes it current; a refusal is logged as the user's `what` before it is thrown.
    private func offerAnew(uid: UInt32, type: String, title: String, userInfo: [UInt8], what: String) async throws
        -> UserActivity {
        do {
            let activity = try makeActivity(type: type, title: title, userInfo: userInfo,
                                            declared: await engine.declaredTypes)
            try await becomeCurrent(activity)
            return activity
        } catch {
            logger.warning("user \(uid)'s \(what) (\(userInfo.count) bytes of userInfo) refused: \(ErrorChain.text(error))")
            throw error
        }
    }

    /// Checks what is cheap to check first (the type is declared, the userInfo bytes alone fit the payload
    /// limit), so a refusal of a multi-megabyte offer does not wait for its property list to be parsed; then
    /// parses userInfo.
    private func makeActivity(type: String, title: String, userInfo: [UInt8], declared: DeclaredActivityTypes) throws
        -> UserActivity {
        guard !type.isEmpty else { throw DaemonError.invalidArguments("the activity type is empty") }
        let limit = configuration.handoff.maximumPayloadSize
        do {
            try declared.require(type)
            // The payload holds userInfo's objects and more, so a userInfo over the limit is a payload over it.
            guard userInfo.count <= limit else {
                throw HandoffError(.userInfoTooLarge, "the userInfo alone is \(userInfo.count) bytes; the payload "
                    + "limit is \(limit) bytes", activityType: type)
            }
        } catch let error as HandoffError {
            throw DaemonError(error)
        }
        let info = try Self.decodeUserInfo(userInfo)
        let activity = UserActivity(activityType: type)
        activity.title = title
        activity.userInfo = info
        activity.delegate = delegate
        try configuration.typeRules[type]?.apply(to: activity, at: clock.date)
        return activity
    }

    /// The `ay userInfo` argument of SetCurrentActivity and UpdateCurrentActivity: empty, or a binary property list
    /// with a dictionary root, read by HandoffKit's strict reader (never Foundation's). The fuzz target
    /// `fuzz-dbus-arguments` drives this from libdbus messages.
    static func decodeUserInfo(_ bytes: [UInt8]) throws(DaemonError) -> [String: PlistValue] {
        guard !bytes.isEmpty else { return [:] }
        do {
            return try BinaryPropertyList.decodeDictionary(bytes)
        } catch {
            throw DaemonError.invalidArguments("userInfo must be a binary property list with a dictionary root: "
                + error.description)
        }
    }

    /// Makes `activity` current (the engine checks the type and the size before advertising) and persists the
    /// sequence it advertised under.
    private func becomeCurrent(_ activity: UserActivity) async throws {
        do {
            try await activity.becomeCurrent(in: engine)
        } catch {
            throw DaemonError(error)
        }
        if let sequence = await engine.lastSequence, sequence != persisted.lastSequence {
            persisted.lastSequence = sequence
            saveState()
        }
    }
}
