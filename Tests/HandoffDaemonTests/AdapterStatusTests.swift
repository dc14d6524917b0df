import DBus
import HandoffBusContract
import HandoffClient
import HandoffDaemon
import HandoffShared
import Testing

/// Status says which adapter the daemon uses now: handoffd's radio follows adapters as they come and go, so the
/// daemon asks at every call (`DaemonConfiguration.adapter`) instead of saying what it was started with.
@Suite(.serialized) struct AdapterStatusTests {
    static let address = "00:AA:01:00:00:00"

    @Test func statusFollowsTheAdapterInUseAndSaysWhenThereIsNone() async throws {
        let inUse = Locked(DaemonConfiguration.AdapterReport(name: "hci0", address: Self.address, powered: true,
                                                            choice: "BlueZ's default"))
        let machines = try await TwoMachines.make(pair: false, laptop: { $0.adapter = { inUse.withLock { $0 } } })
        defer { Task { await machines.shutDown() } }
        let client = try await machines.laptop.client()

        var status = try await client.status()
        #expect(status.adapter == "hci0")
        #expect(status.adapterAddress == Self.address)
        #expect(status.powered)
        #expect(status.adapterChoice == "BlueZ's default")

        inUse.withLock { $0 = .init(name: nil, powered: true, choice: "waiting for an adapter") }
        status = try await client.status()
        #expect(status.adapter == nil)
        #expect(status.adapterAddress == nil)
        #expect(!status.powered, "no adapter cannot be on")
        #expect(status.adapterChoice == "waiting for an adapter")

        inUse.withLock {
            $0 = .init(name: "hci1", address: "00:AA:01:01:00:01", powered: false,
                       choice: "in place of \(Self.address) (away)")
        }
        // A user who does not own the daemon sees the adapter too, as they see whether it is on.
        status = try await machines.laptop.client(asUser: 4242).status()
        #expect(status.adapter == "hci1")
        #expect(status.adapterAddress == "00:AA:01:01:00:01")
        #expect(!status.powered)
        #expect(status.adapterChoice == "in place of \(Self.address) (away)")
    }

    @Test func theNewKeysAreOnTheBusBesideTheOldOnes() async throws {
        let machines = try await TwoMachines.make(pair: false, laptop: {
            $0.adapter = { .init(name: nil, powered: false, choice: "waiting for --adapter hci1") }
        })
        defer { Task { await machines.shutDown() } }
        let connection = try machines.laptop.bus.connect()
        defer { connection.close() }
        let reply = try await connection.call(
            destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface,
            member: "Status")
        let values = try [String: Variant](dbusValue: try #require(reply.first))
        #expect(values["Adapter"] == Variant(""))
        #expect(values["AdapterAddress"] == Variant(""))
        #expect(values["Powered"] == Variant(false))
        #expect(values["AdapterChoice"] == Variant("waiting for --adapter hci1"))
    }
}
