import Foundation
@testable import HandoffDaemon
@testable import HandoffKit
import HandoffClient
import HandoffTesting
import Testing

/// What a stranger in radio range can do to a daemon with its own advertisements (issue 14 §3; the VM's
/// hostile-* scenarios do the same over real BlueZ).
@Suite(.serialized) struct HostilePeerTests {
    /// A flood of pairing beacons, each under a new name (as a stranger's btmgmt flood in the VM sends them):
    /// the daemon remembers at most `maximumRecentCandidates` of them, not one per name for as long as it lasts.
    @Test func aFloodOfPairingBeaconsIsNotRememberedWithoutBound() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        for index in 0..<1_000 {
            await machines.ether.inject(beacon: PairingBeacon.encode(name: "stranger\(index)"),
                                        from: PeerAddress("sim:stranger\(index)"))
        }
        await machines.ether.inject(beacon: PairingBeacon.encode(name: "last"), from: PeerAddress("sim:last"))
        let daemon = machines.desktop.daemon
        let remembered = try await eventually { () async -> Int? in
            let candidates = await daemon.recentCandidates
            return candidates["last"] == nil ? nil : candidates.count
        }
        #expect(remembered <= HandoffDaemon.maximumRecentCandidates)
        // The flood took nothing else: the paired devices still continue each other.
        let (note, continued) = try await machines.continueANote("after the flood")
        #expect(continued == note)
    }
}

/// Pairing beacons of devices that never answer, around while the user pairs (issue 14 §3, a known limit until
/// session 10): `handoff pair` on both machines still pairs them with each other.
@Suite(.serialized) struct PairingAmongStrangersTests {
    @Test func beaconsOfDevicesThatNeverAnswerDoNotMakePairingFail() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        // Names that sort after "desktop", so the desktop initiates with them too; nothing answers there.
        for index in 0..<5 {
            await machines.ether.inject(beacon: PairingBeacon.encode(name: "fake\(index)"),
                                        from: PeerAddress("sim:nobody\(index)"))
        }
        let daemon = machines.desktop.daemon
        _ = try await eventually { () async -> Int? in
            let count = await daemon.recentCandidates.count
            return count == 5 ? count : nil
        }
        try await machines.pairThroughTheAPI()
        let (note, continued) = try await machines.continueANote("paired among strangers")
        #expect(continued == note)
    }
}
