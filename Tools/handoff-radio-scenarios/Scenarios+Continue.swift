import Foundation
import HandoffBlueZ
import HandoffKit

extension Scenarios {
    /// The trusted peer decodes the beacon, a stranger on the other adapter hears it and decodes nothing, and an
    /// update re-advertises with a higher sequence that the peer sees.
    @Sendable static func beacon() async throws -> String {
        let (source, target) = try await trustedPair()
        let stranger = try await ScenarioDevice.make("eve", adapter: "hci1", store: try TrustStore.create(deviceName: "eve"))
        defer { Task { for device in [source, target, stranger] { await device.shutDown() } } }
        let heard = try await stranger.radio.scan()
        let leaks = await stranger.engine.availabilityUpdates()
        let started = ContinuousClock.now
        let (activity, remote) = try await offerNote(bytes: 100, from: source, to: target)
        let seenAfter = ContinuousClock.now - started
        try expect(remote.device.name == "laptop", "the beacon decoded to device \(remote.device.name)")
        try expect(remote.peer.rawValue == "/org/bluez/hci1/dev_00_AA_01_00_00_00", "peer \(remote.peer)")

        let raw = try await first(heard, "the beacon on the stranger's radio") {
            $0.peer.rawValue.hasSuffix("dev_00_AA_01_00_00_00")
        }
        try expect(raw.beacon.count == WireProtocol.beaconLength, "the stranger heard \(raw.beacon.count) bytes")
        if let leak = try? await first(leaks, "a leak", limit: .seconds(5)) {
            throw ScenarioFailure("the stranger decoded \(leak)")
        }
        let strangerList = await stranger.engine.availableActivities()
        try expect(strangerList.isEmpty, "the stranger lists \(strangerList)")

        let updates = await target.engine.availabilityUpdates()
        let updated = ContinuousClock.now
        activity.userInfo = ["content": "milk, eggs, bread"]
        let next = try await first(updates, "the updated beacon") { $0.sequence > remote.sequence }
        let updateAfter = ContinuousClock.now - updated
        return "trusted peer decoded the beacon after \(seconds(seenAfter)) s; stranger heard it and decoded "
            + "nothing; update (sequence \(remote.sequence) → \(next.sequence)) seen after \(seconds(updateAfter)) s"
    }

    /// A note with `bytes` of data is discovered and continued over real GATT; prints time and throughput.
    /// `patient` tolerates 30 s without progress (5 s × 6) instead of 6 s: the source queues every notification
    /// in bluetoothd at once, and at the VM's link rate (1–4 KiB/s) a loss followed by a FETCH waits behind that
    /// backlog of stale frames for longer than the default stall window.
    ///
    /// `path`, when given, is the transport the link must have used (`fallback` its reason); `source` adjusts the
    /// source's radio (an older build without the channel, a PSM nobody listens on); `setupEnds`, when given, is
    /// how the link's setup phases must end.
    static func roundTrip(bytes: Int, patient: Bool = false, path: LinkTransport.Kind? = nil,
                          fallback: LinkTransport.Fallback? = nil, setupEnds: [String]? = nil,
                          source adjustSource: @escaping (inout BlueZRadioOptions) -> Void = { _ in }) async throws
        -> String {
        let (source, target) = try await trustedPair(configure: { configuration in
            if patient {
                configuration.stallInterval = .seconds(5)
                configuration.maximumStalls = 6
            }
        }, source: adjustSource)
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (_, remote) = try await offerNote(bytes: bytes, from: source, to: target)
        target.counting.traffic.resetTimeline()
        let started = ContinuousClock.now
        let outcome = await target.engine.continueActivity(remote)
        let elapsed = ContinuousClock.now - started
        guard let received = outcome.activity else {
            throw ScenarioFailure("continue failed: \(String(describing: outcome.error))")
        }
        if bytes == 0 {
            try expect(received.userInfo.isEmpty, "userInfo arrived as \(received.userInfo)")
        } else {
            try expect(received.userInfo["blob"] == .data(blob(bytes)), "the payload arrived altered")
        }
        try expect(received.title == "Groceries", "the title arrived as \(received.title ?? "nil")")
        let transports = target.counting.transports
        if let path {
            try expect(transports.allSatisfy { $0.kind == path }, "the links went over \(transports), not \(path)")
        }
        if let fallback {
            try expect(transports.allSatisfy { $0.fallback == fallback },
                       "the links went over \(transports), not a fallback for \(fallback.rawValue)")
        }
        if let setupEnds {
            let setup = target.counting.lastSetup.map(\.name)
            try expect(setup.suffix(setupEnds.count) == setupEnds[...], "the link's setup was \(setup)")
        }
        let mtu = target.counting.lastMTU.map(String.init) ?? "?"
        let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = time > 0 ? Double(bytes) / time / 1024 : 0
        let traffic = target.counting.traffic
        let rateText = String(format: "%.1f", rate)
        let over = transports.last.map { "\($0)" } ?? "?"
        let phases = phaseBreakdown(target.counting, started: started)
        var detail = "\(bytes) B continued in \(seconds(elapsed)) s (\(rateText) KiB/s) at ATT MTU \(mtu), "
        detail += "\(target.counting.connectCount) connection(s), \(traffic.writes) write(s), "
        detail += "\(traffic.notifications) notification(s), fetch window \(target.fetchWindow) B, "
        detail += "refetched \(refetchedFrames(traffic.dataOffsets)) frame(s), over \(over); phases: \(phases)"
        return detail
    }
}

/// DATA frames that arrived at an offset already received (fetched again after a loss or a resume).
func refetchedFrames(_ offsets: [Int]) -> Int {
    offsets.count - Set(offsets).count
}

/// Where the time of the last continue went: the radio's setup phases (waiting for a previous link, connect,
/// services resolved, PSM read, channel open or subscribe), then REQUEST to OPEN, the transfer (OPEN to the last
/// DATA) and DONE (last DATA to the DONE write), each in seconds.
func phaseBreakdown(_ counting: CountingRadio, started: ContinuousClock.Instant) -> String {
    let timeline = counting.traffic.timeline
    var parts = counting.lastSetup.map { "\($0.name) \(seconds($0.duration))" }
    if let linked = timeline.linked, let connect = timeline.connect {
        parts.insert("link \(seconds(linked - connect))", at: 0)
    }
    if let request = timeline.request, let open = timeline.open { parts.append("request→open \(seconds(open - request))") }
    if let open = timeline.open, let last = timeline.lastData { parts.append("transfer \(seconds(last - open))") }
    if let last = timeline.lastData, let done = timeline.done { parts.append("done \(seconds(done - last))") }
    if let done = timeline.done { parts.append("total \(seconds(done - started))") }
    return parts.joined(separator: ", ")
}
