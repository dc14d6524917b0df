import BlueZ
import DBus
import Foundation
import HandoffBlueZ
import HandoffKit
import HandoffTesting

extension Scenarios {
    /// The channel drops mid-transfer (the source disconnects the central): the target reconnects over the
    /// channel again and resumes from the last byte it holds, so no DATA offset arrives twice.
    @Sendable static func channelResume() async throws -> String {
        // 4 MiB, so the drop lands mid-transfer: bluetoothd carries out a Disconnect only after its 2 s disconnect
        // timer, and over the channel 1 MiB could finish first (then nothing had to resume).
        let bytes = 4 << 20
        let (source, target) = try await trustedPair(configure: { $0.maximumPayloadSize = bytes + (64 << 10) })
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (_, remote) = try await offerNote(bytes: bytes, from: source, to: target)
        let transfer = Task { await target.engine.continueActivity(remote) }
        // Drop the link as soon as some payload has arrived (the metadata frame is the first DATA frame).
        try await within(.seconds(60), "the first payload frames") {
            while target.counting.traffic.dataOffsets.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        }
        let central = await source.bluez.device(at: targetOnSource)
        let heldAtDrop = target.counting.traffic.dataOffsets.count
        let dropped = ContinuousClock.now
        // bluetoothd may not yet count the link the kernel made for the channel as the device's connection, and
        // then takes the first Disconnect for a no-op: ask again until a second link shows or the transfer ends.
        do {
            try await central.disconnect()
        } catch {
            throw ScenarioFailure("the source could not disconnect the central: \(error)")
        }
        for _ in 1...10 where target.counting.transports.count < 2 {
            try await Task.sleep(for: .milliseconds(300))
            try? await central.disconnect()
        }
        let outcome = try await within(.seconds(120), "the resumed transfer") { await transfer.value }
        guard let received = outcome.activity else {
            throw ScenarioFailure("no resume: \(String(describing: outcome.error))")
        }
        try expect(received.userInfo["blob"] == .data(blob(bytes)), "the resumed payload arrived altered")
        let transports = target.counting.transports
        try expect(transports.count >= 2, "the transfer finished without reconnecting (\(transports))")
        try expect(transports.allSatisfy { $0.kind == .l2cap }, "the links went over \(transports)")
        let offsets = target.counting.traffic.dataOffsets
        let again = refetchedFrames(offsets)
        try expect(again == 0, "\(again) DATA frame(s) arrived twice: the resume did not start from the last byte held")
        return "4 MiB transfer dropped by the source after \(heldAtDrop) DATA frame(s); target reconnected over "
            + "\(transports.last.map { "\($0)" } ?? "?") (\(transports.count) links, setup of the last: "
            + "\(target.counting.lastSetup.map { "\($0.name) \(seconds($0.duration))" }.joined(separator: ", "))) "
            + "and finished \(seconds(ContinuousClock.now - dropped)) s after the drop; 0 frames fetched again"
    }

    /// A stranger (its own trust group) opens a channel to the source's PSM and sends a forged REQUEST for the
    /// advertised sequence and a FETCH for a guessed transfer: it gets `untrustedPeer` (4612) and an error, and
    /// not one DATA frame.
    @Sendable static func channelStranger() async throws -> String {
        let stores = try HandoffFixtures.pairedStores(["laptop", "desktop"])
        let source = try await ScenarioDevice.make("laptop", adapter: "hci0", store: stores[0])
        let stranger = try await ScenarioDevice.make("eve", adapter: "hci1", store: try TrustStore.create(deviceName: "eve"))
        defer { Task { for device in [source, stranger] { await device.shutDown() } } }
        let activity = UserActivity(activityType: noteType)
        activity.title = "Groceries"
        activity.userInfo = ["content": "secret", "blob": .data(blob(3 * 1024))]
        try await activity.becomeCurrent(in: source.engine)
        let last = await source.engine.lastSequence
        guard let sequence = last else { throw ScenarioFailure("nothing advertised") }
        let link = try await stranger.radio.connect(to: PeerAddress("/org/bluez/hci1/dev_00_AA_01_00_00_00"))
        defer { Task { await link.disconnect() } }
        try expect(link.transport.kind == .l2cap, "the stranger's link went over \(link.transport)")
        let nonce: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        var request: [UInt8] = [WireProtocol.version, 0x01]
        request += withUnsafeBytes(of: sequence.bigEndian, Array.init) + nonce + [UInt8](repeating: 0xAA, count: 16)
        try await link.write(request)
        try await link.write([WireProtocol.version, 0x02] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0x10, 0])
        var frames: [[UInt8]] = []
        let collected = try await within(.seconds(20), "the source's answers") { () -> [[UInt8]] in
            var got: [[UInt8]] = []
            for await frame in link.notifications {
                got.append(frame)
                if got.count == 2 { break }
            }
            return got
        }
        frames = collected
        // Anything more within two seconds would be a leak.
        let extra = try? await within(.seconds(2), "more frames") { () -> [UInt8]? in
            for await frame in link.notifications { return frame }
            return nil
        }
        if let leaked = extra { frames.append(leaked) }
        try expect(frames.count == 2, "the stranger got \(frames.count) frames: \(frames.map { $0.prefix(2) })")
        try expect(frames.allSatisfy { $0.count >= 12 && $0[1] == 0x83 }, "the stranger got a non-error frame")
        let codes = frames.map { Int($0[10]) << 8 | Int($0[11]) }
        try expect(Array(frames[0][2..<10]) == nonce && codes[0] == HandoffError.Code.untrustedPeer.rawValue,
                   "the forged REQUEST got code \(codes[0])")
        let message = String(decoding: frames[0][12...], as: UTF8.self)
        return "stranger on PSM (\(link.transport)): forged REQUEST → ERROR \(codes[0]) (\"\(message)\"), guessed FETCH "
            + "→ ERROR \(codes[1]); 0 DATA frames"
    }

    /// A note is continued, edited on the source and continued again at once, `count` times in a row, each
    /// continue starting within 2 s of the last one's end (issue 9 §5: the second used to reuse the first's dying
    /// connection and fail with 4609 NotConnected). Every continue must bring the latest edit. Prints the p50 of
    /// the continues and the phase breakdown of the last one.
    static func backToBack(count: Int, path: LinkTransport.Kind) async throws -> String {
        let (source, target) = try await trustedPair()
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (activity, remote) = try await offerNote(bytes: 3 * 1024, from: source, to: target)
        var times: [Duration] = []
        var gaps: [Duration] = []
        var breakdown = ""
        var ended: ContinuousClock.Instant?
        for round in 1...count {
            let content = "edit \(round)"
            activity.userInfo = ["content": .string(content), "blob": .data(blob(3 * 1024))]
            target.counting.traffic.resetTimeline()
            let started = ContinuousClock.now
            if let ended { gaps.append(started - ended) }
            let outcome = await target.engine.continueActivity(remote)
            let elapsed = ContinuousClock.now - started
            ended = ContinuousClock.now
            guard let received = outcome.activity else {
                throw ScenarioFailure("continue \(round) of \(count) failed after \(times.count) succeeded: "
                                          + "\(String(describing: outcome.error))")
            }
            try expect(received.userInfo["content"] == .string(content),
                       "continue \(round) brought \(String(describing: received.userInfo["content"])), not \(content)")
            times.append(elapsed)
            breakdown = phaseBreakdown(target.counting, started: started)
        }
        let transports = target.counting.transports
        try expect(transports.allSatisfy { $0.kind == path }, "the links went over \(transports), not \(path)")
        try expect(gaps.allSatisfy { $0 < .seconds(2) }, "a continue started more than 2 s after the last")
        let sorted = times.sorted()
        let p50 = sorted[sorted.count / 2 - (sorted.count % 2 == 0 ? 1 : 0)]
        return "\(count)/\(count) back-to-back continues of 3 KB over \(path) (largest gap "
            + "\(seconds(gaps.max() ?? .zero)) s); p50 \(seconds(p50)) s, min \(seconds(sorted[0])) s, max "
            + "\(seconds(sorted[sorted.count - 1])) s; times \(times.map(seconds).joined(separator: " ")); "
            + "last phases: \(breakdown)"
    }
}

extension Scenarios {
    /// What a continue costs a daemon that has run a while: one pair of engines, `count` continues of a 3 KB note
    /// over the channel, each on a cold link (the receiver's channel linger is zero, and each round waits until
    /// bluetoothd on both sides says the peer is disconnected). The first reads the PSM over GATT; the others
    /// open the channel to the PSM they know, and the kernel makes the LE connection. Every continue must bring
    /// the latest edit, and every one after the first must use the known PSM (setup `channel` only). Prints the
    /// first continue's time and the p50 of the others, with their phases.
    static func coldLinks(count: Int) async throws -> String {
        let (source, target) = try await trustedPair(target: { $0.channelLinger = .zero })
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (activity, remote) = try await offerNote(bytes: 3 * 1024, from: source, to: target)
        guard let path = ObjectPath(rawValue: remote.peer.rawValue) else {
            throw ScenarioFailure("the note's peer \(remote.peer) is not a device path")
        }
        let peerOnTarget = await target.bluez.device(at: path)
        // A connection an earlier process left up (bluetoothd keeps one it made for a client that has gone) would
        // make the first round warm: take it down first.
        try? await peerOnTarget.disconnect(timeout: .seconds(5))
        var times: [Duration] = []
        var phases: [String] = []
        for round in 1...count {
            try await waitUntilDisconnected(peerOnTarget, "round \(round)'s link")
            let content = "cold edit \(round)"
            activity.userInfo = ["content": .string(content), "blob": .data(blob(3 * 1024))]
            target.counting.traffic.resetTimeline()
            let started = ContinuousClock.now
            let outcome = await target.engine.continueActivity(remote)
            let elapsed = ContinuousClock.now - started
            guard let received = outcome.activity else {
                throw ScenarioFailure("cold continue \(round) of \(count) failed: \(String(describing: outcome.error))")
            }
            try expect(received.userInfo["content"] == .string(content),
                       "cold continue \(round) brought \(String(describing: received.userInfo["content"]))")
            // A wait for the last link's lease (bluetoothd may say disconnected a moment before it is given back)
            // is no GATT: what must not be here is a connection through bluetoothd, services or a PSM read.
            let setup = target.counting.lastSetup.map(\.name)
            try expect(round == 1 || setup.filter { $0 != "previous-link" } == ["channel"],
                       "cold continue \(round) did not use the known PSM: setup \(setup)")
            times.append(elapsed)
            phases.append(phaseBreakdown(target.counting, started: started))
        }
        let transports = target.counting.transports
        try expect(transports.allSatisfy { $0.kind == .l2cap }, "the links went over \(transports), not l2cap")
        let later = times.dropFirst().sorted()
        let p50 = later[(later.count - 1) / 2]
        return "\(count)/\(count) cold continues of 3 KB over l2cap; first (PSM read over GATT) "
            + "\(seconds(times[0])) s: \(phases[0]); later ones (known PSM) p50 \(seconds(p50)) s, min "
            + "\(seconds(later[0])) s, max \(seconds(later[later.count - 1])) s; times "
            + "\(times.map(seconds).joined(separator: " ")); last phases: \(phases[phases.count - 1])"
    }

    /// Waits up to 20 s until bluetoothd says `device` is not connected.
    private static func waitUntilDisconnected(_ device: Device1, _ what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? await device.properties().connected) == true {
            guard ContinuousClock.now < deadline else { throw ScenarioFailure("\(what): still connected after 20 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
