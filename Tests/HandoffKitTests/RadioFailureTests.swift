import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Radio failures surface as clear `HandoffError`s, not raw radio errors.
@Suite struct RadioFailureTests {
    /// A radio whose stack refuses everything (bluetoothd down, adapter off).
    struct RefusingRadio: Radio {
        func advertise(_ beacon: [UInt8]) async throws { throw RadioError(.failed, "advertising refused") }
        func stopAdvertising() async {}
        func scan() async throws -> AsyncStream<ScanEvent> { throw RadioError(.failed, "discovery refused") }
        func reportNextAdvertisement(of peer: PeerAddress) async {}
        func openTransferService() async throws -> any TransferService {
            throw RadioError(.failed, "RegisterApplication refused")
        }
        func connect(to peer: PeerAddress) async throws -> any RadioLink { throw RadioError(.unreachable, "no route") }
    }

    @Test func startAdvertiseAndConnectFailuresAreHandoffErrors() async throws {
        let configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        let engine = try HandoffEngine(configuration: configuration, trust: try TrustStore.create(deviceName: "x"),
                                       radio: RefusingRadio())
        do {
            try await engine.start()
            Issue.record("start succeeded on a refusing radio")
        } catch {
            #expect(error.code == .radioFailure)
            #expect(ErrorChain.text(error).contains("RegisterApplication refused"), "\(ErrorChain.text(error))")
        }
        do {
            try await UserActivity(activityType: noteType).becomeCurrent(in: engine)
            Issue.record("advertising succeeded on a refusing radio")
        } catch {
            #expect(error.code == .radioFailure)
            #expect(error.activityType == noteType)
        }
        do {
            _ = try await engine.pair(with: PeerAddress("nowhere")) { _ in true }
            Issue.record("pairing succeeded on a refusing radio")
        } catch {
            #expect(error.code == .connectionUnavailable)
        }
    }

    @Test func linkBelowTheMinimumMTUIsRefusedClearly() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        let remote = try await offer(activity, from: source, to: receiver)
        var conditions = LinkConditions()
        conditions.mtu = 23
        await ether.setConditions(conditions)
        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.error?.code == .radioFailure)
        #expect(outcome.error?.message.contains("MTU is 23") ?? false, "\(String(describing: outcome.error))")
        #expect(receiver.delegate.failures.first?.activityType == noteType)
    }
}
