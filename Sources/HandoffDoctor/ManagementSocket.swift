#if canImport(Glibc)
import Glibc
#endif

/// A client of the kernel's Bluetooth management interface (`HCI_CHANNEL_CONTROL`), for the two read-only
/// commands `handoff doctor` needs. Needs no privileges: the kernel lets any user issue its untrusted commands.
struct ManagementSocket: ~Copyable {
    private let fd: Int32

    /// Why the interface could not be used.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let step: String
        let code: Int32
        var description: String { "\(step): \(String(cString: strerror(code)))" }
    }

    private static let afBluetooth: Int32 = 31
    private static let btprotoHCI: Int32 = 1
    private static let devNone: UInt16 = 0xFFFF
    private static let channelControl: UInt16 = 3
    private static let readIndexList: UInt16 = 0x0003
    private static let readInfo: UInt16 = 0x0004
    private static let commandComplete: UInt16 = 0x0001
    private static let commandStatus: UInt16 = 0x0002

    init() throws(Failure) {
        let fd = socket(Self.afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.btprotoHCI)
        guard fd >= 0 else { throw Failure(step: "socket(AF_BLUETOOTH, BTPROTO_HCI)", code: errno) }
        // struct sockaddr_hci { sa_family_t family; unsigned short dev; unsigned short channel; }
        var address: [UInt16] = [UInt16(Self.afBluetooth), Self.devNone, Self.channelControl]
        let bound = address.withUnsafeMutableBytes { raw in
            raw.withMemoryRebound(to: sockaddr.self) { bind(fd, $0.baseAddress, socklen_t(raw.count)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(step: "bind(HCI_CHANNEL_CONTROL)", code: code)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The controllers the kernel knows, by index.
    func controllerIndexes() throws(Failure) -> [UInt16] {
        let reply = try command(Self.readIndexList, index: Self.devNone)
        guard reply.count >= 2 else { return [] }
        let count = Int(reply[0]) | Int(reply[1]) << 8
        return (0..<count).compactMap { i in
            let at = 2 + 2 * i
            return at + 1 < reply.count ? UInt16(reply[at]) | UInt16(reply[at + 1]) << 8 : nil
        }
    }

    /// One controller's information.
    func controllerInfo(_ index: UInt16) throws(Failure) -> ControllerInfo? {
        ControllerInfo(index: index, reply: try command(Self.readInfo, index: index))
    }

    /// Sends a command without parameters and returns the parameters of its Command Complete, skipping
    /// unrelated events. Waits at most two seconds.
    private func command(_ opcode: UInt16, index: UInt16) throws(Failure) -> [UInt8] {
        let header: [UInt8] = [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8), 0, 0]
        guard header.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == header.count else {
            throw Failure(step: "write(mgmt 0x\(String(opcode, radix: 16)))", code: errno)
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        for _ in 0..<64 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 2000) == 1 else { throw Failure(step: "mgmt reply", code: ETIMEDOUT) }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count >= 6 else { throw Failure(step: "read(mgmt)", code: count < 0 ? errno : EIO) }
            let event = UInt16(buffer[0]) | UInt16(buffer[1]) << 8
            let eventIndex = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
            guard count >= 9, eventIndex == index,
                  event == Self.commandComplete || event == Self.commandStatus,
                  UInt16(buffer[6]) | UInt16(buffer[7]) << 8 == opcode else { continue }
            let status = buffer[8]
            guard status == 0 else { throw Failure(step: "mgmt 0x\(String(opcode, radix: 16)) status \(status)", code: EIO) }
            return Array(buffer[9..<count])
        }
        throw Failure(step: "mgmt reply", code: ETIMEDOUT)
    }
}
