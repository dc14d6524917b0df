import Foundation
import Glibc
@testable import HandoffKit
import Testing

/// Issue 25 §9: a resumed push trusts only what was flushed and recorded as durable, never the partial's length
/// on disk alone, which a power loss can leave longer than the bytes that reached the disk.
@Suite struct ShareResumeTests {
    static let recordSize = 4096
    static let payload = (0..<(3 * recordSize + 500)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    func record(_ number: Int) -> [UInt8] {
        let start = (number - 1) * Self.recordSize
        return Array(Self.payload[start..<min(start + Self.recordSize, Self.payload.count)])
    }

    @Test("after a power loss that kept the length but not the bytes, the item arrives exactly as sent")
    func powerLossKeepsNoGarbage() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("resume-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sender = TrustedDevice(id: UUID(), name: "laptop", publicKey: Data(count: 32), pairedAt: Date())
        let id = try #require(TransferID(bytes: [UInt8](repeating: 9, count: 8)))
        let header = TransferHeader(transferID: id, sequence: 0, metadataLength: 40,
                                    payloadLength: UInt32(Self.payload.count), recordSize: UInt16(Self.recordSize))
        let metadata = ShareMetadata(kind: .file, name: "report.bin", mediaType: "application/octet-stream")
        let inbox = try ShareInbox(directory: directory)
        #expect(try inbox.begin(header, from: sender) == .resume(record: 0, metadata: nil))
        try inbox.setMetadata(metadata, transferID: id)
        try inbox.append(record(1), transferID: id)
        try inbox.append(record(2), transferID: id)
        // The power went. The file kept its length, and the digests, but record 2's bytes never reached the disk
        // (no record is flushed on its own): what is there is zeros.
        let data = inbox.partialFolder.appendingPathComponent(id.description).appendingPathComponent("data")
        #expect(truncate(data.path, off_t(Self.recordSize)) == 0)
        #expect(truncate(data.path, off_t(2 * Self.recordSize)) == 0)

        let rebooted = try ShareInbox(directory: directory)
        let start = try rebooted.begin(header, from: sender)
        #expect(start == .resume(record: 2, metadata: metadata))
        guard case .resume(let first, _) = start else { return }
        for number in first...header.recordCount { try rebooted.append(record(number), transferID: id) }
        let item = try rebooted.commit(transferID: id)
        let received = try Data(contentsOf: rebooted.dataURL(of: item.id))
        #expect(received == Data(Self.payload))
    }
}
