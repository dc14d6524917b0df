import BlueZ
import DBus
import Foundation
import L2CAP
import ScenarioSupport

#if canImport(Glibc)
import Glibc
#endif

/// One scenario: a name, a time limit in seconds, and the code that proves it (throws to fail).
struct Scenario: Sendable {
    let name: String
    let limit: Int64
    let run: @Sendable (Rig, Report) async throws -> Void
}

/// The two adapters as L2CAP addresses (from Adapter1's Address and AddressType), and a connectable advertisement
/// on hci0: the kernel opens the LE link itself when hci1 connects a channel and no link is up, which needs hci0
/// to advertise connectably.
struct Rig: Sendable {
    let bluez: BlueZ
    let hci0: Adapter1
    let hci1: Adapter1
    /// hci0: where the scenarios listen.
    let server: L2CAPAddress
    /// hci1: where they connect from.
    let client: L2CAPAddress
    let advertisement: AdvertisementRegistration

    static func make() async throws -> Rig {
        let (bluez, hci0, hci1) = try await poweredAdapters()
        let server = try await address(of: hci0, bluez: bluez)
        let client = try await address(of: hci1, bluez: bluez)
        let advertisement = try await bluez.register(LEAdvertisement(type: .peripheral, localName: "l2cap"),
                                                     on: hci0)
        FileHandle.standardError.write(Data("rig: hci0 \(server), hci1 \(client)\n".utf8))
        return Rig(bluez: bluez, hci0: hci0, hci1: hci1, server: server, client: client,
                   advertisement: advertisement)
    }

    func tearDown() async { await advertisement.cancel() }

    /// `Adapter1.Address` with `Adapter1.AddressType`.
    static func address(of adapter: Adapter1, bluez: BlueZ) async throws -> L2CAPAddress {
        guard let address = try await adapter.properties().address else {
            throw ScenarioFailure("\(adapter.name) has no Address")
        }
        let proxy = Proxy(connection: bluez.connection, destination: BlueZNames.service,
                          path: adapter.path, interface: BlueZNames.adapter1)
        let type = try await proxy.property("AddressType", as: String.self)
        guard let l2cap = L2CAPAddress(address.string, addressType: type) else {
            throw ScenarioFailure("\(adapter.name): \(address.string) of type '\(type)' is no LE address")
        }
        return l2cap
    }

    /// A listener on hci0 and a channel from hci1 to it, both ends up.
    func pair(receiveMTU: Int = 65535, clientMTU: Int = 65535) async throws
        -> (listener: L2CAPListener, server: L2CAPChannel, client: L2CAPChannel)
    {
        let listener = try L2CAPListener.listen(on: server, receiveMTU: receiveMTU)
        async let accepted = listener.accept()
        let channel = try await L2CAPChannel.connect(from: client, to: server, psm: listener.psm,
                                                     receiveMTU: clientMTU, timeout: .seconds(45))
        return (listener, try await accepted, channel)
    }
}

/// FNV-1a, 64 bits: a checksum both ends compute over a stream.
struct Checksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ bytes: [UInt8]) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
    }
}

/// Deterministic bytes: SDU `index` of `size` bytes.
func pattern(_ index: Int, size: Int) -> [UInt8] {
    var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<size).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// A child process with stdout and stderr in a file (posix_spawn: Foundation's Process misses exits in the VM).
struct Child {
    let pid: pid_t
    let output: String

    static func spawn(_ argv: [String], output: String) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Dispatch's threads block signals, and a spawned child inherits the mask: without this, l2test would
        // ignore the SIGTERM that stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, &arguments, environ)
        guard spawned == 0 else { throw ScenarioFailure("cannot start \(argv[0]): errno \(spawned)") }
        return Child(pid: pid, output: output)
    }

    /// Waits for the exit (polling waitpid every 50 ms, so the wait can be bounded and cancelled).
    func wait(limit: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1 }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ScenarioFailure("\(pid) did not exit within \(limit)")
    }

    /// SIGKILL and reap (never blocks: a child that ignored signals would otherwise hang the scenario).
    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
}
