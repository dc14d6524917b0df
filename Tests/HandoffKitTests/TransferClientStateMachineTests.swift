import Foundation
@testable import HandoffKit
import Testing

/// The transfer client's decisions, driven with calls alone: no radio, no clock, no task. Each test plays the
/// source's part with a real sealed stream and checks what the client would write, when it moves to a new link,
/// and how it ends.
@Suite struct TransferClientStateMachineTests {
    typealias Machine = TransferClient.StateMachine

    /// The source's side: a sealed stream and the DATA frames of any range of it.
    struct Source {
        let keys: GroupKeys
        let device: TrustedDevice
        let header: TransferHeader
        let stream: [UInt8]
        let payload: Data

        init(activityType: String = "org.handoff.note", payloadLength: Int, recordSize: Int = 256) throws {
            keys = GroupKeys(try TrustGroup.generate())
            device = TrustedDevice(id: UUID(), name: "laptop", publicKey: Data(count: 32), pairedAt: Date())
            payload = Data((0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            (header, stream) = TransferSealer.seal(activityType: activityType, payload: payload, sequence: 7,
                                                   recordSize: recordSize, keys: keys, source: device.id)
        }

        var remote: RemoteActivity {
            RemoteActivity(device: device, activityType: "org.handoff.note", sequence: 7, peer: PeerAddress("sim:laptop"),
                           rssi: nil, seenAt: Date(), typeTag: [])
        }

        func open(_ nonce: Nonce) -> TransferFrame { .open(header, requestNonce: nonce) }

        /// DATA frames of `range`, `Self.frameBytes` at a time, as the source notifies them.
        func data(_ range: Range<Int>) -> [TransferFrame] {
            stride(from: range.lowerBound, to: range.upperBound, by: Self.frameBytes).map { start in
                .data(transferID: header.transferID, offset: UInt32(start),
                      bytes: Array(stream[start..<min(start + Self.frameBytes, range.upperBound)]))
            }
        }

        static let frameBytes = 100
        static let link = Machine.Link(maximumFrameLength: frameBytes + TransferFrame.dataOverhead, isChannel: false)
    }

    let nonce = Nonce.random()

    func machine(for source: Source, configure: (inout HandoffConfiguration) -> Void = { _ in }) throws -> Machine {
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(["org.handoff.note"]))
        configuration.fetchWindow = 1_000
        configure(&configuration)
        return Machine(keys: source.keys, configuration: configuration, remote: source.remote, requestNonce: nonce,
                       link: Source.link)
    }

    /// A machine that holds the OPEN and the metadata record and was approved: next, the first payload window.
    func approvedMachine(for source: Source) throws -> Machine {
        var machine = try machine(for: source)
        _ = try machine.received(source.open(nonce))
        _ = try feed(source.data(0..<Int(source.header.metadataLength)), to: &machine)
        _ = machine.approved()
        return machine
    }

    /// Feeds `frames` and returns every action, in order.
    func feed(_ frames: [TransferFrame], to machine: inout Machine) throws(HandoffError) -> [Machine.Action] {
        var actions: [Machine.Action] = []
        for frame in frames { actions += try machine.received(frame) }
        return actions
    }

    func fetch(_ source: Source, _ range: Range<Int>) -> Machine.Action {
        .write(.fetch(transferID: source.header.transferID, from: UInt32(range.lowerBound), to: UInt32(range.upperBound)))
    }

    func error(_ body: (inout Machine) throws(HandoffError) -> [Machine.Action], on machine: inout Machine) -> HandoffError? {
        do {
            _ = try body(&machine)
            return nil
        } catch {
            return error
        }
    }

    /// Wire v2: the source's challenge for this request is answered with its proof; one for another request, or
    /// after the OPEN, is not.
    @Test func theSourcesChallengeIsAnsweredOnceForThisRequestOnly() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        _ = machine.start()
        let challenge = [UInt8](repeating: 0x5C, count: TransferFrame.challengeLength)
        #expect(try machine.received(.challenge(nonce: Nonce.random(), challenge: challenge)) == [])
        #expect(try machine.received(.challenge(nonce: nonce, challenge: challenge))
                    == [.write(.prove(nonce: nonce, mac: source.keys.proofMAC(nonce: nonce, challenge: challenge)))])
        #expect(try machine.received(source.open(nonce)) == [])
        #expect(try machine.received(.challenge(nonce: nonce, challenge: challenge)) == [])
    }

    @Test func aWholeTransferIsRequestOpenApprovalWindowsAndDone() throws {
        let source = try Source(payloadLength: 2_000)
        var machine = try machine(for: source)
        let metadata = Int(source.header.metadataLength)

        #expect(machine.start() == [.write(.request(sequence: 7, nonce: nonce,
                                                    mac: source.keys.requestMAC(sequence: 7, nonce: nonce)))])
        #expect(try machine.received(source.open(nonce)) == [])
        // The source sends the metadata record unasked; once it opens, the app is asked before any payload moves.
        #expect(try feed(source.data(0..<metadata), to: &machine)
                    == [.approve(activityType: "org.handoff.note", header: source.header)])
        // Windows of 1,000 bytes rounded down to whole frames of 100: one round trip per window.
        #expect(machine.approved() == [fetch(source, metadata..<(metadata + 1_000))])
        #expect(try feed(source.data(metadata..<(metadata + 1_000)), to: &machine)
                    == [fetch(source, (metadata + 1_000)..<(metadata + 2_000))])
        #expect(try feed(source.data((metadata + 1_000)..<(metadata + 2_000)), to: &machine)
                    == [fetch(source, (metadata + 2_000)..<source.header.streamLength)])
        let sealer = TransferSealer(header: source.header, keys: source.keys, source: source.device.id)
        #expect(try feed(source.data((metadata + 2_000)..<source.header.streamLength), to: &machine)
                    == [.write(.done(transferID: source.header.transferID, mac: sealer.doneMAC())),
                        .finish(TransferClient.Result(activityType: "org.handoff.note", payload: source.payload))])
        #expect(machine.reconnects == 0)
    }

    /// `handoff continue --pause-source`: the last writes are a DONE that asks, then a plain DONE for a source
    /// older than requests (a newer one finishes at the first and finds nothing at the second).
    @Test func aDoneThatAsksIsFollowedByAPlainDone() throws {
        let source = try Source(payloadLength: 300)
        var machine = try machine(for: source)
        machine.requests = .pauseSource
        _ = machine.start()
        _ = try machine.received(source.open(nonce))
        let metadata = Int(source.header.metadataLength)
        _ = try feed(source.data(0..<metadata), to: &machine)
        _ = machine.approved()
        let sealer = TransferSealer(header: source.header, keys: source.keys, source: source.device.id)
        let id = source.header.transferID
        #expect(try feed(source.data(metadata..<source.header.streamLength), to: &machine)
                    == [.write(.doneAsking(transferID: id, requests: 1, mac: sealer.doneMAC(requests: 1))),
                        .write(.done(transferID: id, mac: sealer.doneMAC())),
                        .finish(TransferClient.Result(activityType: "org.handoff.note", payload: source.payload))])
    }

    /// Progress is nothing before the OPEN, none of the payload while the metadata record arrives, then the sealed
    /// payload received in proportion to the plaintext, never falling back, ending exactly at the payload's length.
    @Test func payloadProgressRunsFromTheOpenToThePayloadsLength() throws {
        let source = try Source(payloadLength: 2_000)
        var machine = try machine(for: source)
        let metadata = Int(source.header.metadataLength)
        #expect(machine.payloadProgress == nil)
        _ = try machine.received(source.open(nonce))
        #expect(machine.payloadProgress?.received == 0)
        #expect(machine.payloadProgress?.total == 2_000)
        _ = try feed(source.data(0..<metadata), to: &machine)
        #expect(machine.payloadProgress?.received == 0)
        _ = machine.approved()
        var seen: [Int] = []
        for frame in source.data(metadata..<source.header.streamLength) {
            _ = try machine.received(frame)
            seen.append(machine.payloadProgress?.received ?? -1)
        }
        #expect(seen == seen.sorted())
        #expect(seen.first.map { $0 > 0 && $0 < 2_000 } == true)
        #expect(seen.last == 2_000)
    }

    @Test func anEmptyPayloadFinishesAtApproval() throws {
        let source = try Source(payloadLength: 0)
        var machine = try machine(for: source)
        _ = try machine.received(source.open(nonce))
        #expect(try feed(source.data(0..<source.header.streamLength), to: &machine).count == 1)
        #expect(machine.approved().last == .finish(TransferClient.Result(activityType: "org.handoff.note", payload: Data())))
    }

    @Test func aGapIsAskedAboutOnceAndTheRestOfTheOldStreamIsIgnored() throws {
        let source = try Source(payloadLength: 2_000)
        var machine = try approvedMachine(for: source)
        let metadata = Int(source.header.metadataLength)
        var window = source.data(metadata..<(metadata + 1_000))
        let lost = window.remove(at: 2)
        let first = metadata + 2 * Source.frameBytes
        // The frame after the lost one asks from the first missing byte; the rest of that stream asks nothing.
        #expect(try feed(Array(window[0...2]), to: &machine) == [fetch(source, first..<(first + 1_000))])
        #expect(try feed(Array(window[3...]), to: &machine) == [])
        // The source starts again at the missing byte: it is taken, and the window ends where the new fetch said.
        #expect(try machine.received(lost) == [])
        #expect(try feed(source.data((first + Source.frameBytes)..<(first + 1_000)), to: &machine)
                    == [fetch(source, (first + 1_000)..<min(first + 2_000, source.header.streamLength))])
    }

    @Test func aRestartedStreamThatLostItsFirstFrameTooIsAskedAgainAtOnce() throws {
        let source = try Source(payloadLength: 2_000)
        var machine = try approvedMachine(for: source)
        let metadata = Int(source.header.metadataLength)
        let window = source.data(metadata..<(metadata + 1_000))
        let first = metadata + Source.frameBytes
        #expect(try feed([window[0], window[2]], to: &machine) == [fetch(source, first..<(first + 1_000))])
        // The restarted stream's first frame (window[1]) is lost as well; its second is at or before the last
        // offset seen, so it opens a new stream: asked about at once, not at the next tick.
        #expect(try machine.received(window[2]) == [fetch(source, first..<(first + 1_000))])
        #expect(try machine.received(window[1]) == [])
    }

    @Test func stallsAskAgainThenMoveToANewLinkOnceThenFail() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        let request = machine.start()
        #expect(try machine.tick() == request)          // first stall: ask again on this link
        #expect(try machine.tick() == [.relink])        // second: a new link, once
        #expect(machine.relinked(Source.link) == request)
        #expect(try machine.tick() == request)          // third: asked again, no second relink
        let failure = error({ (machine: inout Machine) throws(HandoffError) in try machine.tick() }, on: &machine)
        #expect(failure?.code == .remoteApplicationTimedOut)
        #expect(failure?.message.contains("no progress after 4 waits") == true)
        #expect(machine.reconnects == 1)
    }

    @Test func progressStartsTheStallsAndTheRelinkOver() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        _ = machine.start()
        _ = try machine.tick()
        #expect(try machine.tick() == [.relink])
        _ = machine.relinked(Source.link)
        _ = try machine.received(source.open(nonce))
        #expect(try machine.tick() == [])               // progress since the last tick: no stall
        let metadata = Int(source.header.metadataLength)
        #expect(try machine.tick() == [fetch(source, 0..<metadata)])   // a stall: the metadata asked for again
        #expect(try machine.tick() == [.relink])        // and a new run of stalls may relink again
    }

    @Test func aClosedLinkIsReplacedUpToTheLimitThenTheTransferFails() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source) { $0.maximumReconnects = 2 }
        _ = machine.start()
        let request = machine.start()
        for _ in 0..<2 {
            #expect(try machine.linkClosed() == [.relink])
            #expect(machine.relinked(Source.link) == request)
        }
        let failure = error({ (machine: inout Machine) throws(HandoffError) in try machine.linkClosed() }, on: &machine)
        #expect(failure?.code == .connectionUnavailable)
    }

    @Test func aChannelAsksForItsOwnWindow() throws {
        let source = try Source(payloadLength: 3_000)
        var machine = try machine(for: source) { $0.channelFetchWindow = 2_000 }
        let metadata = Int(source.header.metadataLength)
        _ = try machine.received(source.open(nonce))
        _ = try feed(source.data(0..<metadata), to: &machine)
        _ = try machine.linkClosed()
        // The new link is a channel: from here on its window applies (2,000 bytes, whole frames of 100).
        _ = machine.relinked(Machine.Link(maximumFrameLength: Source.link.maximumFrameLength, isChannel: true))
        #expect(machine.approved() == [fetch(source, metadata..<(metadata + 2_000))])
    }

    @Test func theSourcesErrorEndsTheTransferWithItsCodeButAStrangersDoesNot() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        _ = machine.start()
        #expect(try machine.received(.error(context: ErrorContext(Nonce.random()), code: 4608, tag: [], message: "other")) == [])
        let failure = error({ (machine: inout Machine) throws(HandoffError) in
            try machine.received(.error(context: ErrorContext(nonce), code: 4616, tag: [], message: "expired"))
        }, on: &machine)
        #expect(failure?.code == .activityExpired)
        #expect(failure?.message == "the source device refused: expired")
    }

    @Test func anOpenForAnotherRequestIsIgnored() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        #expect(try machine.received(source.open(Nonce.random())) == [])
        // Without this request's OPEN, DATA of the transfer is not taken either.
        #expect(try feed(source.data(0..<source.header.streamLength), to: &machine) == [])
    }

    /// The OPEN carries no MAC: a recorded transfer of an older version, its OPEN rewritten to echo our nonce (a
    /// stranger at an address tried after a rotation), is dropped, and so is its DATA.
    @Test func anOpenOfAnOlderVersionThanAskedIsIgnored() throws {
        let source = try Source(payloadLength: 500)
        var asked = source.remote
        asked.sequence = 8
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(["org.handoff.note"]))
        configuration.fetchWindow = 1_000
        var machine = Machine(keys: source.keys, configuration: configuration, remote: asked, requestNonce: nonce,
                              link: Source.link)
        #expect(try machine.received(source.open(nonce)) == [])
        #expect(try feed(source.data(0..<source.header.streamLength), to: &machine) == [])
    }

    @Test func aForgedRecordFailsAuthentication() throws {
        let source = try Source(payloadLength: 500)
        var machine = try machine(for: source)
        _ = try machine.received(source.open(nonce))
        let metadata = Int(source.header.metadataLength)
        var forged = Array(source.stream[0..<metadata])
        forged[forged.count - 1] ^= 1
        let failure = error({ (machine: inout Machine) throws(HandoffError) in
            try machine.received(.data(transferID: source.header.transferID, offset: 0, bytes: forged))
        }, on: &machine)
        #expect(failure?.code == .corruptPayload)
        #expect(failure?.message == "the transfer's metadata failed authentication")
    }

    @Test func anotherActivityTypeThanTheBeaconsIsRefused() throws {
        let source = try Source(activityType: "org.handoff.link", payloadLength: 500)
        var machine = try machine(for: source)
        _ = try machine.received(source.open(nonce))
        let failure = error({ (machine: inout Machine) throws(HandoffError) in
            try feed(source.data(0..<Int(source.header.metadataLength)), to: &machine)
        }, on: &machine)
        #expect(failure?.code == .corruptPayload)
        #expect(failure?.activityType == "org.handoff.note")
    }
}
