import Foundation
@testable import HandoffKit
import HandoffTesting
import HandoffShared
import Testing

/// `pair` over the in-memory radio: discovery, the 6-digit code on both sides, then activities flow.
@Suite struct PairingOverRadioTests {
    final class Codes: Sendable {
        private let codes = Locked<[String]>([])
        var all: [String] { codes.withLock { $0 } }
        func add(_ code: String) { codes.withLock { $0.append(code) } }
    }

    private func freshEngine(_ name: String, ether: InMemoryEther, delegate: RecordingContinuationDelegate? = nil,
                             quietLimit: Duration = .seconds(15)) async throws -> HandoffEngine {
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        configuration.beaconRotationInterval = nil
        configuration.stallInterval = .milliseconds(100)
        configuration.pairingQuietLimit = quietLimit
        configuration.clock = ether.clock
        let engine = try HandoffEngine(configuration: configuration, trust: try TrustStore.create(deviceName: name),
                                       radio: ether.makeRadio(address: "sim:\(name)"), delegate: delegate)
        try await engine.start()
        return engine
    }

    /// "mac" in pairing mode, saying yes to every code (kept in `codes`), and "pc", which has seen it.
    private func pairingMode(on ether: InMemoryEther, quietLimit: Duration = .seconds(15)) async throws
        -> (mac: HandoffEngine, pc: HandoffEngine, responder: Task<TrustStore, any Error>,
            candidate: PairingCandidate, codes: Codes) {
        let mac = try await freshEngine("mac", ether: ether, quietLimit: quietLimit)
        let pc = try await freshEngine("pc", ether: ether)
        let candidates = await pc.pairingCandidates()
        let codes = Codes()
        let responder = Task { try await mac.acceptPairing { code in codes.add(code); return true } }
        return (mac, pc, responder, try await first(candidates), codes)
    }

    /// A stranger on `ether` connected to `candidate` that has written `start` in a pairing session of its own.
    private func stranger(on ether: InMemoryEther, sending start: [UInt8], to candidate: PairingCandidate)
        async throws -> (link: any RadioLink, session: Nonce) {
        let link = try await ether.makeRadio(address: "sim:stranger").connect(to: candidate.peer)
        let session = Nonce.random()
        for frame in try PairingFragments.split(start, session: session, maximumValue: 200, fromServer: false) {
            try await link.write(frame.encoded())
        }
        return (link, session)
    }

    @Test func newDeviceFindsPairsAndThenContinuesAnActivity() async throws {
        let ether = InMemoryEther()
        let mac = try await freshEngine("mac", ether: ether)
        let pcDelegate = RecordingContinuationDelegate()
        let pc = try await freshEngine("pc", ether: ether, delegate: pcDelegate)
        let codes = Codes()
        let candidates = await pc.pairingCandidates()
        let responder = Task {
            try await mac.acceptPairing { code in codes.add(code); return true }
        }
        let candidate = try await first(candidates)
        #expect(candidate.name == "mac")
        let pcStore = try await pc.pair(with: candidate.peer) { code in codes.add(code); return true }
        let macStore = try await responder.value
        #expect(codes.all.count == 2)
        #expect(Set(codes.all).count == 1, "the two screens showed different codes: \(codes.all)")
        #expect(pcStore.group == macStore.group)
        #expect(pcStore.devices.map(\.name) == ["mac"])
        #expect(macStore.devices.map(\.name) == ["pc"])
        let engineTrust = await pc.trust
        #expect(engineTrust == pcStore, "the engine did not adopt the new trust state")

        let updates = await pc.availabilityUpdates()
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": "paired"]
        try await activity.becomeCurrent(in: mac)
        let remote = try await first(updates)
        let outcome = await pc.continueActivity(remote)
        #expect(outcome.activity?.userInfo["content"] == "paired")
    }

    /// "pc" pairs with "mac" in pairing mode, each side answering the code as given; how each side failed (nil:
    /// it paired), and the engines.
    private func pairing(responder: @escaping @Sendable (String) async -> Bool,
                         initiator: @escaping @Sendable (String) async -> Bool) async throws
        -> (responder: HandoffError?, initiator: HandoffError?, mac: HandoffEngine, pc: HandoffEngine) {
        let ether = InMemoryEther()
        let mac = try await freshEngine("mac", ether: ether)
        let pc = try await freshEngine("pc", ether: ether)
        let candidates = await pc.pairingCandidates()
        let answering = Task { try await mac.acceptPairing(confirm: responder) }
        let candidate = try await first(candidates)
        var initiatorError: HandoffError?
        do {
            _ = try await pc.pair(with: candidate.peer, confirm: initiator)
        } catch {
            initiatorError = error
        }
        var responderError: HandoffError?
        do {
            _ = try await answering.value
        } catch let error as HandoffError {
            responderError = error
        }
        return (responderError, initiatorError, mac, pc)
    }

    @Test func rejectingTheCodeOnEitherSideFailsBoth() async throws {
        for rejectOnResponder in [true, false] {
            let (responder, initiator, _, pc) = try await pairing(responder: { _ in !rejectOnResponder },
                                                                   initiator: { _ in rejectOnResponder })
            #expect(initiator?.code == .pairingFailed, "\(String(describing: initiator))")
            #expect(responder?.code == .pairingFailed, "\(String(describing: responder))")
            let trust = await pc.trust
            #expect(trust.devices.isEmpty)
        }
    }

    /// Issue 14 §3: in pairing mode, a stranger that starts with what does not parse, or starts properly and goes
    /// quiet, is told so and dropped; pairing mode then answers the real device. Before, the first ended pairing
    /// mode and the second held it until the caller's timeout, so either made `handoff pair` fail.
    @Test func aStrangersBadOrAbandonedStartDoesNotEndPairingMode() async throws {
        for abandons in [false, true] {
            let start = abandons ? try PairingInitiator(store: try TrustStore.create(deviceName: "stranger")).hello()
                                 : [WireProtocol.version, 0x7F, 0xBE, 0xEF]    // this version, no such message kind
            let ether = InMemoryEther()
            let (_, pc, responder, candidate, codes) = try await pairingMode(on: ether, quietLimit: .milliseconds(300))
            let (stranger, session) = try await stranger(on: ether, sending: start, to: candidate)
            var answers = stranger.notifications.makeAsyncIterator()
            if abandons {
                // The commitment comes back; the stranger then says nothing more.
                guard case .pair(session, _, _, _, true)? = try await answers.next().map(TransferFrame.decode) else {
                    Issue.record("the stranger's proper start was not answered")
                    return
                }
            }
            guard case .error(ErrorContext(session), let code, _, let message)? = try await answers.next()
                .map(TransferFrame.decode) else {
                Issue.record("abandons \(abandons): the stranger was not told it was dropped")
                return
            }
            #expect(code == (abandons ? HandoffError.Code.remoteApplicationTimedOut.rawValue
                                      : HandoffError.Code.pairingFailed.rawValue), "\(message)")

            let pcStore = try await pc.pair(with: candidate.peer) { code in codes.add(code); return true }
            let macStore = try await responder.value
            #expect(pcStore.group == macStore.group, "abandons \(abandons)")
            #expect(macStore.devices.map(\.name) == ["pc"], "abandons \(abandons)")
            #expect(codes.all.count == 2, "abandons \(abandons): a code was shown for the stranger")
            await stranger.disconnect()
        }
    }

    /// The other device's user rejects the code while this device's user has not answered yet: pairing mode ends
    /// at once with that reason, and the question put to this user is withdrawn (its task cancelled), instead of
    /// waiting for an answer that no longer matters. (Before, the answer was awaited, and a yes then failed on
    /// the ABORT as an unexpected message.)
    @Test func aRejectionOnTheOtherDeviceEndsPairingModeWithoutWaitingForThisUser() async throws {
        let withdrawn = Locked(false)
        let (responder, initiator, mac, _) = try await pairing(responder: { _ in
            try? await Task.sleep(for: .seconds(10))   // this user is slow to answer
            withdrawn.withLock { $0 = Task.isCancelled }
            return true
        }, initiator: { _ in false })
        #expect(initiator?.code == .pairingFailed, "\(String(describing: initiator))")
        #expect(responder?.code == .pairingFailed, "\(String(describing: responder))")
        #expect(responder?.message == "the code was rejected on the other device")
        try await Task.sleep(for: .milliseconds(50))
        #expect(withdrawn.withLock { $0 }, "the question to this user was not withdrawn")
        let trust = await mac.trust
        #expect(trust.devices.isEmpty)
    }

    /// Pairing mode answers several devices at once: a stranger that starts properly and then goes quiet holds
    /// nothing up. The real device pairs at once, on a clock that never moves (so long before `pairingQuietLimit`),
    /// and the stranger is told when the real device's code is shown. Before, the real device's start was refused
    /// ("this device is pairing with another device") until the stranger's quiet limit, and its `pair` failed.
    @Test func aStrangerThatStartsAndGoesQuietDoesNotHoldUpTheRealPartner() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let (_, pc, responder, candidate, codes) = try await pairingMode(on: ether)
        let hello = try PairingInitiator(store: try TrustStore.create(deviceName: "stranger")).hello()
        let (stranger, session) = try await stranger(on: ether, sending: hello, to: candidate)
        // The commitment comes back; the stranger then says nothing more.
        let commit = try TransferFrame.decode(try await first(stranger.notifications))
        guard case .pair(session, _, _, _, true) = commit else {
            Issue.record("the stranger's proper start was not answered")
            return
        }

        let pcStore = try await pc.pair(with: candidate.peer) { code in codes.add(code); return true }
        let macStore = try await responder.value
        #expect(pcStore.group == macStore.group)
        #expect(macStore.devices.map(\.name) == ["pc"])
        #expect(codes.all.count == 2, "a code was shown for the stranger: \(codes.all)")
        #expect(Set(codes.all).count == 1, "the two screens showed different codes: \(codes.all)")
        #expect(clock.now == HandoffInstant(offset: .zero), "the pairing waited for the clock")

        var told: TransferFrame?
        while told == nil {
            let frame = try TransferFrame.decode(try await first(stranger.notifications))
            if case .error = frame { told = frame }
        }
        guard case .error(ErrorContext(session), let code, _, let message)? = told else {
            Issue.record("the stranger was told something else: \(String(describing: told))")
            return
        }
        #expect(code == HandoffError.Code.pairingFailed.rawValue, "\(message)")
        #expect(message == "this device is pairing with another device")
        await stranger.disconnect()
    }

    @Test func pairingWithADeviceNotInPairingModeFails() async throws {
        let ether = InMemoryEther()
        let mac = try await freshEngine("mac", ether: ether)
        let pc = try await freshEngine("pc", ether: ether)
        do {
            _ = try await pc.pair(with: PeerAddress("sim:mac")) { _ in true }
            Issue.record("paired with a device that was not in pairing mode")
        } catch {
            #expect(error.code == .pairingFailed)
        }
        _ = mac
    }

    @Test func pairingGivesUpAfterItsTimeoutWhenTheOtherDeviceNeverAnswers() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let mac = try await freshEngine("mac", ether: ether)
        let pc = try await freshEngine("pc", ether: ether)
        var conditions = LinkConditions()
        conditions.dropAllNotifications = true   // nothing mac answers reaches pc
        await ether.setConditions(conditions)
        // mac is in pairing mode: a device that is not drops pc's link at its first pairing message (the gate), and
        // pc learns at once that the other device left.
        let accepting = Task { try await mac.acceptPairing { _ in true } }
        defer { accepting.cancel() }
        let timeout = Duration.seconds(5)
        let error = try await onVirtualTime(clock, of: ether, step: pc.configuration.stallInterval,
                                            maximumSteps: 500) { () -> HandoffError? in
            do {
                _ = try await pc.pair(with: PeerAddress("sim:mac"), timeout: timeout) { _ in true }
                return nil
            } catch {
                return error as? HandoffError
            }
        }
        #expect(error?.code == .remoteApplicationTimedOut, "\(String(describing: error))")
        #expect(clock.now.offset >= timeout, "pairing gave up before its timeout")
        _ = mac
    }

    @Test func aThirdDeviceJoinsTheExistingGroup() async throws {
        let ether = InMemoryEther()
        let mac = try await freshEngine("mac", ether: ether)
        let pc = try await freshEngine("pc", ether: ether)
        let tablet = try await freshEngine("tablet", ether: ether)
        for newcomer in [pc, tablet] {
            let candidates = await newcomer.pairingCandidates()
            let responder = Task { try await mac.acceptPairing { _ in true } }
            let candidate = try await first(candidates)
            _ = try await newcomer.pair(with: candidate.peer) { _ in true }
            _ = try await responder.value
        }
        let macTrust = await mac.trust
        let tabletTrust = await tablet.trust
        #expect(Set(macTrust.devices.map(\.name)) == ["pc", "tablet"])
        #expect(Set(tabletTrust.devices.map(\.name)) == ["mac", "pc"], "the roster travels with the group")
        #expect(macTrust.group == tabletTrust.group)
    }
}
