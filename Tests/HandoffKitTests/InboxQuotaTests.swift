import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

/// Issue 25, finding 8: what the inbox charges against its quota. A push that stopped halfway counts its announced
/// length only for `partialLifetime` on the inbox's clock (no restart needed), it can be listed and dropped, and
/// every item counts its metadata, so items of no bytes cannot fill the disk for free.
@Suite struct InboxQuotaTests {
    let sender = TrustedDevice(id: UUID(), name: "laptop", publicKey: Data(count: 32), pairedAt: Date())

    private func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("inbox-quota-\(UUID().uuidString)")
    }

    private func header(_ byte: UInt8, payload: UInt32, metadata: UInt16 = 40) throws -> TransferHeader {
        let id = try #require(TransferID(bytes: [UInt8](repeating: byte, count: 8)))
        return TransferHeader(transferID: id, sequence: 0, metadataLength: metadata, payloadLength: payload,
                              recordSize: 4096)
    }

    /// The HandoffError `body` threw, or nil.
    private func refusal(_ body: () throws -> Void) -> HandoffError? {
        do {
            try body()
            return nil
        } catch {
            return error as? HandoffError
        }
    }

    @Test func anAbandonedPartialStopsCountingOnceItsLifetimePassedWithoutARestart() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = VirtualClock()
        var limits = ShareLimits()
        limits.quota = 15_000
        let inbox = try ShareInbox(directory: folder, limits: limits, clock: clock)
        let abandoned = try header(1, payload: 10_000), next = try header(2, payload: 10_000)
        #expect(try inbox.begin(abandoned, from: sender) == .resume(record: 0, metadata: nil))
        #expect(refusal { _ = try inbox.begin(next, from: sender) }?.code == .inboxFull)
        clock.advance(by: .seconds(limits.partialLifetime) - .seconds(1))
        #expect(refusal { _ = try inbox.begin(next, from: sender) }?.code == .inboxFull,
                "the abandoned push stopped counting within its lifetime")
        clock.advance(by: .seconds(2))
        #expect(try inbox.begin(next, from: sender) == .resume(record: 0, metadata: nil),
                "the abandoned push still counts after its lifetime")
        #expect(inbox.partialPushes().map(\.transferID) == [next.transferID.description])
    }

    @Test func partialsAreListedWithTheirExpiryAndCanBeDropped() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = VirtualClock()
        var limits = ShareLimits()
        limits.quota = 25_000
        let inbox = try ShareInbox(directory: folder, limits: limits, clock: clock)
        let first = try header(1, payload: 10_000), second = try header(2, payload: 10_000)
        _ = try inbox.begin(first, from: sender)
        try inbox.setMetadata(ShareMetadata(kind: .file, name: "half.bin", mediaType: "application/octet-stream"),
                              transferID: first.transferID)
        try inbox.append([UInt8](repeating: 1, count: 4096), transferID: first.transferID)
        _ = try inbox.begin(second, from: sender)
        let listed = inbox.partialPushes()
        #expect(listed.map(\.transferID) == [first, second].map(\.transferID.description))
        #expect(listed.first?.name == "half.bin" && listed.first?.receivedBytes == 4096)
        #expect(listed.first?.announcedBytes == 10_000 && listed.first?.senderName == "laptop")
        #expect(listed.first?.expiresAt == clock.date.addingTimeInterval(limits.partialLifetime))
        #expect(refusal { _ = try inbox.begin(try header(3, payload: 10_000), from: sender) }?.code == .inboxFull)
        try inbox.dropPartial(first.transferID.description)
        #expect(inbox.partialPushes().map(\.transferID) == [second.transferID.description])
        #expect(throws: InboxError.notFound(first.transferID.description)) {
            try inbox.dropPartial(first.transferID.description)
        }
        #expect(throws: InboxError.self) { try inbox.dropPartial("../items") }
        #expect(try inbox.begin(try header(3, payload: 10_000), from: sender) == .resume(record: 0, metadata: nil),
                "dropping a partial freed no room")
    }

    @Test func itemsOfNoBytesWithLongNamesFillTheQuota() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var limits = ShareLimits()
        limits.quota = 20_000
        let inbox = try ShareInbox(directory: folder, limits: limits, clock: VirtualClock())
        let name = String(repeating: "n", count: 200)
        var accepted = 0
        var refused: HandoffError?
        for byte in UInt8(1)...UInt8(200) {
            let push = try header(byte, payload: 0, metadata: 220)
            if let error = refusal({ _ = try inbox.begin(push, from: sender) }) {
                refused = error
                break
            }
            try inbox.setMetadata(ShareMetadata(kind: .text, name: name, mediaType: "text/plain"),
                                  transferID: push.transferID)
            _ = try inbox.commit(transferID: push.transferID)
            accepted += 1
        }
        #expect(refused?.code == .inboxFull, "\(accepted) empty items were taken")
        #expect(refused?.message.contains("the inbox is full") == true)
        #expect(accepted * (2 * name.utf8.count + ShareLimits.entryOverhead) <= limits.quota)
        #expect(inbox.items().count == accepted && accepted > 0)
    }
}
