import HandoffShared
import Foundation
import HandoffKit
import HandoffTesting
import XCTest

/// Radio failures surface as clear `HandoffError`s, not raw radio errors.
final class RadioFailureTests: XCTestCase {
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

    func testStartAdvertiseAndConnectFailuresAreHandoffErrors() async throws {
        let configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        let engine = try HandoffEngine(configuration: configuration, trust: try TrustStore.create(deviceName: "x"),
                                       radio: RefusingRadio())
        do {
            try await engine.start()
            XCTFail("start succeeded on a refusing radio")
        } catch {
            XCTAssertEqual(error.code, .radioFailure)
            XCTAssertTrue(ErrorChain.text(error).contains("RegisterApplication refused"), ErrorChain.text(error))
        }
        do {
            try await UserActivity(activityType: noteType).becomeCurrent(in: engine)
            XCTFail("advertising succeeded on a refusing radio")
        } catch {
            XCTAssertEqual(error.code, .radioFailure)
            XCTAssertEqual(error.activityType, noteType)
        }
        do {
            _ = try await engine.pair(with: PeerAddress("nowhere")) { _ in true }
            XCTFail("pairing succeeded on a refusing radio")
        } catch {
            XCTAssertEqual(error.code, .connectionUnavailable)
        }
    }

    func testLinkBelowTheMinimumMTUIsRefusedClearly() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        let remote = try await offer(activity, from: source, to: receiver)
        var conditions = LinkConditions()
        conditions.mtu = 23
        await ether.setConditions(conditions)
        let outcome = await receiver.engine.continueActivity(remote)
        XCTAssertEqual(outcome.error?.code, .radioFailure)
        XCTAssertTrue(outcome.error?.message.contains("MTU is 23") ?? false, "\(String(describing: outcome.error))")
        XCTAssertEqual(receiver.delegate.failures.first?.activityType, noteType)
    }
}
