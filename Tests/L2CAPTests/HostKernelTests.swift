import Testing

@testable import L2CAP

#if canImport(Glibc)
import Glibc
#endif

/// What a user whose kernel has no Bluetooth sockets (this host; a container; a kernel without LE CoC) gets: the
/// `.unsupported` that the transfer's fallback to GATT keys on, with a message that says why. On a kernel that
/// has them, the same calls must instead name the missing adapter (`.unreachable`): either way the test asserts.
@Suite("L2CAP on this host's kernel")
struct HostKernelTests {
    static let local = L2CAPAddress("00:AA:01:00:00:00", kind: .lePublic)!
    static let remote = L2CAPAddress("00:AA:01:01:00:01", kind: .lePublic)!

    /// errno of socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP), or 0 if this kernel has them.
    static let probe: Int32 = {
        let fd = socket(31, Int32(SOCK_SEQPACKET.rawValue), 0)
        if fd >= 0 {
            close(fd)
            return 0
        }
        return errno
    }()

    @Test("listen reports .unsupported and why, where the kernel has no AF_BLUETOOTH")
    func listen() throws {
        do {
            let listener = try L2CAPListener.listen(on: Self.local)
            defer { listener.close() }
            // A kernel with Bluetooth sockets binds to any address (the adapter is looked up on connect).
            #expect(Self.probe == 0, "listen succeeded although socket(AF_BLUETOOTH) failed with \(Self.probe)")
            #expect((0x80...0xFF).contains(listener.psm), "the kernel chose PSM \(listener.psm)")
        } catch {
            try #require(Self.probe != 0, "listen failed on a kernel with Bluetooth sockets: \(error)")
            #expect(error.kind == .unsupported)
            #expect(error.errno == Self.probe)
            #expect(error.message.contains("AF_BLUETOOTH"))
            #expect(error.message.contains("bluetooth module"))
        }
    }

    @Test("connect reports .unsupported where the kernel has no AF_BLUETOOTH, .unreachable without the adapter")
    func connect() async throws {
        do {
            let channel = try await L2CAPChannel.connect(from: Self.local, to: Self.remote, psm: 0x0081,
                                                         timeout: .seconds(5))
            channel.close()
            Issue.record("connected from an adapter that does not exist")
        } catch {
            if Self.probe == 0 {
                #expect(error.kind == .unreachable, "\(error)")
            } else {
                #expect(error.kind == .unsupported, "\(error)")
                #expect(error.errno == Self.probe)
                #expect(error.message.contains("AF_BLUETOOTH"))
            }
        }
    }

    @Test("bad arguments are refused before any socket is made")
    func arguments() async {
        await #expect(throws: L2CAPError.self) {
            try await L2CAPChannel.connect(from: Self.local, to: Self.remote, psm: 0)
        }
        do {
            _ = try await L2CAPChannel.connect(from: Self.local, to: Self.remote, psm: 0x81, receiveMTU: 22)
            Issue.record("an MTU below the LE minimum of 23 was accepted")
        } catch {
            #expect(error.kind == .failed)
            #expect(error.message.contains("23...65535"))
        }
        #expect(throws: L2CAPError.self) { try L2CAPListener.listen(on: Self.local, receiveMTU: 70000) }
        #expect(throws: L2CAPError.self) { try L2CAPListener.listen(on: Self.local, backlog: 0) }
    }

    @Test("a task cancelled before it connects gets .cancelled")
    func cancelledBeforehand() async {
        let task = Task { () async throws(L2CAPError) -> L2CAPChannel in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await L2CAPChannel.connect(from: Self.local, to: Self.remote, psm: 0x81)
        }
        let result = await task.result
        #expect(throws: L2CAPError(.cancelled, message: "L2CAP connect from 00:AA:01:00:00:00 to "
            + "00:AA:01:01:00:01 (public) psm 0x0081: cancelled")) { try result.get() }
    }
}
