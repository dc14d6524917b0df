import Foundation
@testable import HandoffKit
import HandoffShared
import Testing

/// Pairing mode's decisions, driven with calls alone: no radio, no clock, no task. Each central plays its part with
/// a real `PairingInitiator`, its messages split into the fragments a 23-byte MTU carries (several per message), and
/// the time is given with each call.
@Suite struct PairingResponderDeskTests {
    typealias Desk = PairingResponderDesk

    static let mtu = 23
    static let limit = Duration.seconds(15)
    static let anotherDevice = HandoffError(.pairingFailed, "this device is pairing with another device")

    /// A device that starts pairing with the desk.
    struct Central {
        let address: Desk.Address
        var initiator: PairingInitiator

        init(_ name: String) throws {
            address = Desk.Address(central: PeerAddress("sim:\(name)"), session: Nonce.random())
            initiator = try PairingInitiator(store: try TrustStore.create(deviceName: name))
        }

        /// The pairing writes that carry `message`, as the central writes them.
        func writes(_ message: [UInt8]) throws -> [HandoffEngine.PairingWrite] {
            try PairingFragments.split(message, session: address.session,
                                       maximumValue: WireProtocol.valueLength(forMTU: PairingResponderDeskTests.mtu),
                                       fromServer: false).compactMap { frame in
                guard case .pair(_, let index, let count, let chunk, _) = frame else { return nil }
                return HandoffEngine.PairingWrite(central: address.central, session: address.session, index: index,
                                                  count: count, chunk: chunk, mtu: PairingResponderDeskTests.mtu)
            }
        }
    }

    let store: TrustStore

    init() throws {
        store = try TrustStore.create(deviceName: "desktop")
    }

    func desk(capacity: Int = 8) -> Desk {
        let store = store
        return Desk(capacity: capacity, quietLimit: Self.limit) { () throws(HandoffError) in
            try PairingResponder(store: store)
        }
    }

    /// `seconds` after the clock's origin.
    func at(_ seconds: Double) -> HandoffInstant { HandoffInstant(offset: .milliseconds(Int64(seconds * 1000))) }

    /// Feeds all of `message` from `central` at `now`; returns every action.
    func feed(_ message: [UInt8], from central: Central, to desk: inout Desk,
              at now: HandoffInstant) throws -> [Desk.Action] {
        try central.writes(message).flatMap { desk.received($0, at: now) }
    }

    /// The message the desk sends `central` among `actions`.
    func sent(to central: Central, in actions: [Desk.Action]) throws -> [UInt8] {
        let messages = actions.compactMap { action -> [UInt8]? in
            guard case .send(let message, central.address, Self.mtu) = action else { return nil }
            return message
        }
        return try #require(messages.count == 1 ? messages.first : nil,
                            "expected one message to \(central.address): \(actions)")
    }

    func refusal(_ error: HandoffError, to central: Central) -> Desk.Action {
        .refuse(error, to: central.address, mtu: Self.mtu)
    }

    /// Takes `central` from HELLO to its code on `desk`: returns the actions of the NONCE (the code is shown).
    func runToTheCode(_ central: inout Central, on desk: inout Desk, at now: HandoffInstant) throws -> [Desk.Action] {
        let commit = try sent(to: central, in: try feed(central.initiator.hello(), from: central, to: &desk, at: now))
        let nonce = try central.initiator.receiveCommit(commit)
        return try feed(nonce, from: central, to: &desk, at: now)
    }

    /// Takes `central`, whose code was shown and answered yes, through CONFIRM and FINISH: returns both sides' stores.
    func finish(_ central: Central, on desk: inout Desk, at now: HandoffInstant) throws
        -> (central: TrustStore, desk: TrustStore) {
        let actions = try feed(central.initiator.confirm(), from: central, to: &desk, at: now)
        guard case .finish(let deskStore)? = actions.last else {
            Issue.record("the pairing did not finish: \(actions)")
            throw HandoffError(.pairingFailed, "no finish")
        }
        let centralStore = try central.initiator.receiveFinish(try sent(to: central, in: actions))
        return (centralStore, deskStore)
    }

    @Test func twoExchangesInterleavedFragmentByFragmentRunSideBySideAndTheFirstToItsCodeIsThePairing() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        var stranger = try Central("stranger")
        let laptopHello = try laptop.writes(laptop.initiator.hello())
        let strangerHello = try stranger.writes(stranger.initiator.hello())
        #expect(laptopHello.count > 1, "the MTU is meant to split each message")
        var actions: [Desk.Action] = []
        for (ours, theirs) in zip(laptopHello, strangerHello) {
            actions += desk.received(ours, at: at(1))
            actions += desk.received(theirs, at: at(1))
        }
        #expect(actions.count == 2, "\(actions)")
        let laptopNonce = try laptop.initiator.receiveCommit(try sent(to: laptop, in: actions))
        let strangerNonce = try stranger.initiator.receiveCommit(try sent(to: stranger, in: actions))
        #expect(desk.exchanges == [laptop.address, stranger.address])
        #expect(desk.nextDeadline == at(16))

        // The NONCEs interleave too; the stranger's last fragment is held back, so the laptop gets to its code first.
        let laptopWrites = try laptop.writes(laptopNonce)
        let strangerWrites = try stranger.writes(strangerNonce)
        actions = []
        for (index, ours) in laptopWrites.enumerated() {
            if index < strangerWrites.count - 1 { actions += desk.received(strangerWrites[index], at: at(2)) }
            actions += desk.received(ours, at: at(2))
        }
        let reveal = try sent(to: laptop, in: actions)
        let code = try laptop.initiator.receiveReveal(reveal)
        #expect(actions == [.send(reveal, to: laptop.address, mtu: Self.mtu), refusal(Self.anotherDevice, to: stranger),
                            .show(code: code, for: laptop.address)])
        #expect(desk.exchanges == [laptop.address])
        #expect(desk.nextDeadline == nil, "a shown code waits for the user, not for a quiet limit")
        // The stranger's last fragment now finds the desk taken.
        #expect(strangerWrites.last.map { desk.received($0, at: at(3)) } == [refusal(Self.anotherDevice, to: stranger)])

        #expect(desk.answered(true) == [])
        let (laptopStore, deskStore) = try finish(laptop, on: &desk, at: at(4))
        #expect(deskStore.devices.map(\.name) == ["laptop"])
        #expect(laptopStore.devices.map(\.name) == ["desktop"])
        #expect(laptopStore.group == deskStore.group)
        #expect(desk.hasEnded)
    }

    @Test func aDeviceQuietForTheLimitIsDroppedAloneWhileTheOtherFinishes() throws {
        var desk = desk()
        let quiet = try Central("quiet")
        var laptop = try Central("laptop")
        _ = try sent(to: quiet, in: try feed(quiet.initiator.hello(), from: quiet, to: &desk, at: at(0)))
        let commit = try sent(to: laptop, in: try feed(laptop.initiator.hello(), from: laptop, to: &desk, at: at(5)))
        #expect(desk.nextDeadline == at(15))

        #expect(desk.tick(at: at(14.999)) == [], "dropped before its quiet limit")
        let timedOut = HandoffError(.remoteApplicationTimedOut,
                                    "this device stopped waiting for the pairing; start again")
        #expect(desk.tick(at: at(15)) == [refusal(timedOut, to: quiet)])
        #expect(desk.exchanges == [laptop.address])
        #expect(desk.nextDeadline == at(20), "the next deadline is the laptop's")

        // The laptop, heard again at 16 s, is not dropped at 20 s.
        let nonce = try laptop.initiator.receiveCommit(commit)
        let actions = try feed(nonce, from: laptop, to: &desk, at: at(16))
        guard case .show? = actions.last else {
            Issue.record("no code shown: \(actions)")
            return
        }
        #expect(desk.tick(at: at(600)) == [], "a shown code never times out here")
        _ = try laptop.initiator.receiveReveal(try sent(to: laptop, in: actions))
        #expect(desk.answered(true) == [])
        let (_, deskStore) = try finish(laptop, on: &desk, at: at(700))
        #expect(deskStore.devices.map(\.name) == ["laptop"])
        #expect(desk.nextDeadline == nil)
    }

    @Test func garbageFromOneDeviceDoesNotTouchAnother() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let garbage = try Central("garbage")
        let outOfOrder = try Central("out-of-order")
        let commit = try sent(to: laptop, in: try feed(laptop.initiator.hello(), from: laptop, to: &desk, at: at(0)))

        // Version 1, no such message kind.
        #expect(try feed([WireProtocol.version, 0x7F, 0xBE, 0xEF], from: garbage, to: &desk, at: at(1)).map(\.code) == [4618])
        // A HELLO's second fragment first (a lost notification).
        let writes = try outOfOrder.writes(outOfOrder.initiator.hello())
        #expect(desk.received(writes[1], at: at(1)).map(\.code) == [4618])
        #expect(desk.exchanges == [laptop.address], "only the laptop is still answered")

        let nonce = try laptop.initiator.receiveCommit(commit)
        let actions = try feed(nonce, from: laptop, to: &desk, at: at(2))
        _ = try laptop.initiator.receiveReveal(try sent(to: laptop, in: actions))
        #expect(desk.answered(true) == [])
        #expect(try finish(laptop, on: &desk, at: at(3)).desk.devices.map(\.name) == ["laptop"])
    }

    @Test func aNinthExchangeIsRefusedAndTheEightRunningCarryOn() throws {
        var desk = desk()
        var centrals = try (0..<8).map { try Central("device\($0)") }
        var commits: [[UInt8]] = []
        for central in centrals {
            let actions = try feed(central.initiator.hello(), from: central, to: &desk, at: at(0))
            commits.append(try sent(to: central, in: actions))
        }
        let ninth = try Central("ninth")
        let refused = try feed(ninth.initiator.hello(), from: ninth, to: &desk, at: at(1))
        let busy = HandoffError(.pairingFailed, "this device is answering 8 pairings at once; try again in a moment")
        #expect(refused.first == refusal(busy, to: ninth), "\(refused)")
        #expect(desk.exchanges == centrals.map(\.address))

        // One of the eight goes on to its code: the other seven are told.
        let nonce = try centrals[3].initiator.receiveCommit(commits[3])
        let actions = try feed(nonce, from: centrals[3], to: &desk, at: at(2))
        let told = actions.filter { if case .refuse = $0 { true } else { false } }
        #expect(told == centrals.indices.filter { $0 != 3 }.map { refusal(Self.anotherDevice, to: centrals[$0]) })
        _ = try centrals[3].initiator.receiveReveal(try sent(to: centrals[3], in: actions))
    }

    @Test func aPlaceFreedByADroppedDeviceTakesANewStart() throws {
        var desk = desk(capacity: 1)
        let first = try Central("first")
        let second = try Central("second")
        _ = try feed(first.initiator.hello(), from: first, to: &desk, at: at(0))
        #expect(Set(try feed(second.initiator.hello(), from: second, to: &desk, at: at(1)).map(\.code)) == [4618])
        #expect(desk.tick(at: at(15)).map(\.code) == [4610])
        _ = try sent(to: second, in: try feed(second.initiator.hello(), from: second, to: &desk, at: at(16)))
        #expect(desk.exchanges == [second.address])
    }

    @Test func onceACodeIsShownNewStartsAreRefusedAndItsEndIsThePairings() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let late = try Central("late")
        let actions = try runToTheCode(&laptop, on: &desk, at: at(0))
        guard case .show? = actions.last else {
            Issue.record("no code shown: \(actions)")
            return
        }
        let refused = try feed(late.initiator.hello(), from: late, to: &desk, at: at(1))
        #expect(refused.allSatisfy { $0 == refusal(Self.anotherDevice, to: late) } && !refused.isEmpty)
        #expect(desk.exchanges == [laptop.address])

        // A CONFIRM that does not open (here, the HELLO again) after the user said yes ends the pairing.
        #expect(desk.answered(true) == [])
        let ended = try feed(laptop.initiator.hello(), from: laptop, to: &desk, at: at(2))
        #expect(ended.map(\.code) == [4618, 4618])
        guard case .fail? = ended.last else {
            Issue.record("the pairing did not fail: \(ended)")
            return
        }
        #expect(desk.hasEnded)
        #expect(try feed(late.initiator.hello(), from: late, to: &desk, at: at(3)) == [], "nothing after the end")
    }

    @Test func aRejectedCodeEndsThePairing() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let other = try Central("other")
        _ = try feed(other.initiator.hello(), from: other, to: &desk, at: at(0))
        _ = try runToTheCode(&laptop, on: &desk, at: at(0))
        let rejected = HandoffError(.pairingFailed, "the code was rejected on the other device")
        #expect(desk.answered(false) == [refusal(rejected, to: laptop), .fail(rejected)])
        #expect(desk.hasEnded)
        #expect(desk.exchanges.isEmpty)
        #expect(try feed(laptop.initiator.hello(), from: laptop, to: &desk, at: at(1)) == [], "nothing after the end")
    }

    @Test func aConfirmThatArrivesBeforeTheUserAnswersWaitsForTheAnswer() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let actions = try runToTheCode(&laptop, on: &desk, at: at(0))
        _ = try laptop.initiator.receiveReveal(try sent(to: laptop, in: actions))
        let confirm = try laptop.initiator.confirm()
        #expect(try feed(confirm, from: laptop, to: &desk, at: at(1)) == [], "the user has not answered")
        let answered = desk.answered(true)
        guard case .finish(let store)? = answered.last else {
            Issue.record("no finish: \(answered)")
            return
        }
        #expect(store.devices.map(\.name) == ["laptop"])
        #expect(try laptop.initiator.receiveFinish(try sent(to: laptop, in: answered)).group == store.group)
    }

    @Test func anAbortWhileTheCodeIsShownEndsThePairingWithoutWaitingForTheUser() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let actions = try runToTheCode(&laptop, on: &desk, at: at(0))
        _ = try laptop.initiator.receiveReveal(try sent(to: laptop, in: actions))
        let rejected = HandoffError(.pairingFailed, "the code was rejected on the other device")
        let abort = PairingMessage.make(PairingMessage.abort, [])
        #expect(try feed(abort, from: laptop, to: &desk, at: at(1)) == [refusal(rejected, to: laptop), .fail(rejected)])
        #expect(desk.hasEnded)
        #expect(desk.answered(true) == [], "the user's late answer changes nothing")
    }

    @Test func aDeviceThatCannotBeReachedIsDroppedAloneBeforeItsCodeAndEndsThePairingAfter() throws {
        var desk = desk()
        var laptop = try Central("laptop")
        let gone = try Central("gone")
        _ = try feed(gone.initiator.hello(), from: gone, to: &desk, at: at(0))
        let left = HandoffError(.connectionUnavailable, "the other device left during pairing")
        #expect(desk.unreachable(gone.address, left) == [refusal(left, to: gone)])
        #expect(desk.exchanges.isEmpty)
        #expect(!desk.hasEnded)

        _ = try runToTheCode(&laptop, on: &desk, at: at(1))
        #expect(desk.unreachable(laptop.address, left) == [refusal(left, to: laptop), .fail(left)])
        #expect(desk.hasEnded)
    }
}

extension PairingResponderDesk.Action {
    /// The refusal's or failure's code, nil for the other actions.
    var code: Int? {
        switch self {
        case .refuse(let error, _, _), .fail(let error): error.code.rawValue
        case .send, .show, .finish: nil
        }
    }
}
