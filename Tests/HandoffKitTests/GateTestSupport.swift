import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting

/// What the gate tests share: paired devices where the last one takes shares, a stranger's link, and a way to know
/// a device has handled everything a link wrote.
enum Gate25 {
    /// `names`' devices on `ether`; the last takes shares into a fresh inbox and advertises presence, and every other
    /// has seen it.
    static func sharing(_ names: [String] = ["laptop", "desktop"], on ether: InMemoryEther,
                        configure: (inout HandoffConfiguration) -> Void = { _ in }) async throws
        -> (senders: [SimulatedDevice], receiver: SimulatedDevice, inbox: ShareInbox) {
        let all = try await HandoffFixtures.devices(names, on: ether, declaredTypes: [noteType], configure: configure)
        let receiver = all[all.count - 1]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        let inbox = try ShareInbox(directory: directory)
        var sightings: [AsyncStream<UUID>] = []
        for sender in all.dropLast() { sightings.append(await sender.engine.sightings()) }
        await receiver.engine.enableSharing(inbox: inbox, advertisePresence: true)
        for stream in sightings { _ = try await first(stream) }
        return (Array(all.dropLast()), receiver, inbox)
    }

    /// Bytes that vary, so a swapped or lost record shows.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }
    }

    /// Writes a frame no version knows on `link` and waits for the answer to it: the device then handled every
    /// earlier write of this link (one service, one queue). Other notifications on the way are skipped.
    static func drain(_ link: any RadioLink, _ iterator: inout AsyncStream<[UInt8]>.Iterator) async throws {
        try await link.write([WireProtocol.version, 0x7F, 0x25])
        while let value = await iterator.next() {
            if value.count > 10, value[1] == 0x83, value[2..<10].allSatisfy({ $0 == 0 }) { return }
        }
        throw TimedOut()
    }
}
