import DBus
import DBusTestSupport
import Foundation
import HandoffBusContract
import HandoffClient
import HandoffShared
@testable import HandoffDaemon
@testable import HandoffKit
import HandoffTesting
import Testing

/// Issue 25, finding 7: the daemon's owner is decided before any state exists (by `--owner`, or claimed by the
/// first `handoff pair` and written before the pairing runs), and the daemon fails closed: paired devices with no
/// readable owner record let nobody but root in. The tests run as root; other users are assigned uids.
@Suite(.serialized) struct OwnershipTests {
    static let alice: UInt32 = 1000
    static let mallory: UInt32 = 4242

    /// A state directory as a crash between the trust store's save and the owner's left it before this fix:
    /// `trust.json` with a paired device, `state.json` with only a sequence, no owner anywhere.
    private func ownerlessState(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var store = try TrustStore.create(deviceName: "laptop")
        store.adopt(group: store.group, devices: [try TrustStore.create(deviceName: "desktop").identity.asTrustedDevice])
        let state = StateDirectory(directory)
        try state.saveTrust(store)
        try state.saveState(DaemonState(lastSequence: 77))
    }

    /// Calls `Pair` as `uid` with a short timeout (so a pairing that finds nobody ends soon) and returns its error.
    private func pairError(on machine: Machine, as uid: UInt32, timeoutSeconds: UInt32 = 2) async throws -> DBusError? {
        let connection = try machine.bus.connect()
        defer { connection.close() }
        machine.callers.assign(uid, to: connection)
        do {
            _ = try await connection.call(HandoffBusAPI.Method.pair, "", timeoutSeconds, destination: HandoffBusAPI.busName,
                                          path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
                                          timeout: .seconds(30))
            return nil
        } catch {
            return error
        }
    }

    @Test func beforeAnyPairingAnotherUserIsRefusedEverythingButStatus() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let mallory = try machines.laptop.client(asUser: Self.mallory)
        let offer = await serviceError {
            _ = try await mallory.setCurrentActivity(.note(name: "m", title: "M", content: "mallory's"))
        }
        #expect(offer?.code == .permissionDenied, "\(String(describing: offer))")
        #expect(offer?.message.contains("no owner yet") == true, "\(String(describing: offer))")
        #expect(offer?.message.contains("handoff pair") == true, "\(String(describing: offer))")
        for (what, attempt) in [("list", { _ = try await mallory.availableActivities() }),
                                ("devices", { _ = try await mallory.devices() }),
                                ("inbox", { _ = try await mallory.inbox() }),
                                ("outbox", { _ = try await mallory.outbox() })] as [(String, () async throws -> Void)] {
            #expect(await serviceError(attempt)?.code == .permissionDenied, "\(what)")
        }
        let status = try await mallory.status()
        #expect(status.version == DaemonConfiguration.version)
        #expect(status.pairedDevices == 0 && status.currentActivity == nil)
        #expect(try await machines.laptop.client().status().currentActivity == nil, "mallory's offer is current")
    }

    @Test func theFirstUserToPairOwnsTheDaemonBeforeThePairingRunsAndASecondUserIsRefused() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let alice = try machines.laptop.client(asUser: Self.alice)
        let desktop = try await machines.desktop.client()
        async let laptopSide = alice.pair { _ in true }
        async let desktopSide = desktop.pair { _ in true }
        let (paired, _) = try await (laptopSide, desktopSide)
        #expect(paired.name == "desktop")
        let mallory = try machines.laptop.client(asUser: Self.mallory)
        for (what, attempt) in [("devices", { _ = try await mallory.devices() }),
                                ("pair", { _ = try await mallory.pair { _ in true } }),
                                ("offer", { _ = try await mallory.setCurrentActivity(.note(name: "m", title: "M",
                                                                                            content: "m")) })]
            as [(String, () async throws -> Void)] {
            let error = await serviceError(attempt)
            #expect(error?.code == .permissionDenied, "\(what): \(String(describing: error))")
            #expect(error?.message.contains("belongs to user \(Self.alice)") == true, "\(what)")
        }
        #expect(try await alice.devices().map(\.name) == ["desktop"])
        #expect(try await machines.laptop.client().devices().map(\.name) == ["desktop"], "root is refused")
        // The owner is on disk: a restart keeps it.
        try await machines.laptop.restart()
        #expect(try await alice.devices().map(\.name) == ["desktop"])
        #expect(await serviceError { _ = try await mallory.devices() }?.code == .permissionDenied)
    }

    @Test(arguments: [nil, "{ \"uid\": ", "[]"])
    func pairedDevicesWithNoReadableOwnerLetNobodyButRootIn(ownerFile: String?) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-owner-\(UUID())")
        try ownerlessState(in: directory)
        if let ownerFile { try Data(ownerFile.utf8).write(to: directory.appendingPathComponent("owner.json")) }
        let laptop = try await Machine(name: "laptop", ether: InMemoryEther(seed: 3), stateDirectory: directory,
                                       configure: { _ in })
        defer { Task { await laptop.shutDown() } }
        for uid in [Self.alice, Self.mallory] {
            let user = try laptop.client(asUser: uid)
            let devices = await serviceError { _ = try await user.devices() }
            #expect(devices?.code == .permissionDenied, "user \(uid): \(String(describing: devices))")
            #expect(devices?.message.contains("owner.json") == true, "\(String(describing: devices))")
            #expect(devices?.message.contains("handoffd --owner") == true, "\(String(describing: devices))")
            let offer = await serviceError { _ = try await user.setCurrentActivity(.note(name: "n", title: "N",
                                                                                        content: "n")) }
            #expect(offer?.code == .permissionDenied, "user \(uid)")
            // Nobody can claim it either: only the administrator decides who owns paired devices.
            #expect(try await pairError(on: laptop, as: uid)?.name == HandoffBusError.accessDenied, "user \(uid)")
        }
        #expect(try await laptop.client().devices().map(\.name) == ["desktop"], "root is refused")
        // The record was not invented: it is still missing, or still as it was.
        let onDisk = try? String(contentsOf: directory.appendingPathComponent("owner.json"), encoding: .utf8)
        #expect(onDisk == ownerFile)
    }

    @Test func anOwnerTheDiskCannotHoldFailsThePairingAndNothingIsPaired() async throws {
        let disk = try TinyDisk(bytes: 256 << 10)
        defer { disk.unmount() }
        let laptop = try await Machine(name: "laptop", ether: InMemoryEther(seed: 4),
                                       stateDirectory: disk.url.appendingPathComponent("state"), configure: { _ in })
        defer { Task { await laptop.shutDown() } }
        try disk.fill()
        let error = try await pairError(on: laptop, as: Self.alice)
        #expect(error?.name == HandoffBusError.failed, "\(String(describing: error))")
        // Why, as its cause: the disk's own error, carried over the bus.
        #expect(error.map(ErrorChain.text)?.contains("No space left on device") == true, "\(String(describing: error))")
        #expect(error?.message.contains("nothing was paired") == true, "\(String(describing: error))")
        // Alice is not the owner; the daemon is still unclaimed, and holds no device.
        let alice = try laptop.client(asUser: Self.alice)
        #expect(await serviceError { _ = try await alice.devices() }?.code == .permissionDenied)
        #expect(try await laptop.client().devices().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: laptop.stateDirectory.appendingPathComponent("owner.json").path))
    }

    @Test func aTrustStoreTheDiskCannotHoldIsAnErrorForThePairingCaller() async throws {
        let disk = try TinyDisk(bytes: 256 << 10)
        defer { disk.unmount() }
        let ether = InMemoryEther(seed: 5)
        // The administrator's owner (--owner) is recorded at start, before the disk fills.
        let laptop = try await Machine(name: "laptop", ether: ether, stateDirectory: disk.url.appendingPathComponent("s"),
                                       configure: { $0.owner = Self.alice })
        let desktop = try await Machine(name: "desktop", ether: ether, configure: { _ in })
        defer { Task { await laptop.shutDown(); await desktop.shutDown() } }
        try disk.fill()
        let alice = try laptop.client(asUser: Self.alice)
        let root = try await desktop.client()
        async let laptopSide = serviceError { _ = try await alice.pair { _ in true } }
        async let desktopSide = root.pair { _ in true }
        let (error, _) = try await (laptopSide, desktopSide)
        #expect(error?.code == .failed, "\(String(describing: error))")
        #expect(error?.message.contains("trust store could not be saved") == true, "\(String(describing: error))")
        // Why, as its cause: the disk's own error, carried over the bus.
        #expect(error.map(ErrorChain.text)?.contains("No space left on device") == true, "\(String(describing: error))")
    }

    @Test func theAdministratorsOwnerReplacesAClaimAndUnlocksAnOwnerlessStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-owner-\(UUID())")
        try ownerlessState(in: directory)
        let laptop = try await Machine(name: "laptop", ether: InMemoryEther(seed: 6), stateDirectory: directory,
                                       configure: { $0.owner = Self.alice })
        defer { Task { await laptop.shutDown() } }
        #expect(try await laptop.client(asUser: Self.alice).devices().map(\.name) == ["desktop"])
        #expect(await serviceError { _ = try await laptop.client(asUser: Self.mallory).devices() }?.code
            == .permissionDenied)
    }
}
