import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An item to push to another device: what it is, its bytes (in memory or in a file), and the transfer id that
/// names this push. Keep the transfer id with the item (the daemon's outbox does): pushing the same id again
/// resumes from the last byte the receiver holds, even after either side restarted, and never stores it twice.
package struct OutgoingShare: Sendable, Equatable {
    /// Where the bytes are.
    package enum Content: Sendable, Equatable {
        /// In memory (text, a link, a small file).
        case bytes([UInt8])
        /// In a file that must not change until the push is delivered (the daemon keeps its own copy).
        case file(URL)
    }

    /// 16 hex digits naming this push.
    package let transferID: String
    /// Kind, name and media type.
    package var metadata: ShareMetadata
    /// The bytes.
    package var content: Content
    /// Plaintext bytes per sealed record (default 4096; 256...65535).
    package var recordSize = 4096

    /// An item with a fresh transfer id.
    package init(metadata: ShareMetadata, content: Content) {
        self.init(transferID: Self.newTransferID(), metadata: metadata, content: content)
    }

    /// An item with a given transfer id (16 hex digits, from `newTransferID()`).
    package init(transferID: String, metadata: ShareMetadata, content: Content) {
        self.transferID = transferID
        self.metadata = metadata
        self.content = content
    }

    /// A fresh random transfer id.
    package static func newTransferID() -> String {
        TransferID.random().description
    }

    /// The item's length in bytes.
    package func size() throws(HandoffError) -> Int {
        switch content {
        case .bytes(let bytes): return bytes.count
        case .file(let url):
            guard let size = ShareFiles.size(of: url) else {
                throw HandoffError(.handoffFailed, "cannot read \(url.path)")
            }
            return size
        }
    }

    /// The wire id `transferID` spells, or nil unless it is 16 hex digits.
    var wireTransferID: TransferID? { TransferID(hex: transferID) }
}

/// The sealed stream of one push, produced record by record as the sender needs it (never all in memory): the
/// records are deterministic for a transfer id and content, so a resumption after a restart seals the same bytes.
final class ShareStream: @unchecked Sendable {
    // Only used from the one task that runs the push; @unchecked because of the descriptor and the cache.
    let header: TransferHeader
    private let sealer: TransferSealer
    private let metadata: [UInt8]
    private let content: OutgoingShare.Content
    private var file: Int32 = -1
    private var cached: (index: Int, sealed: [UInt8])?
    /// The last stretch read from the file: records are sealed from it, so a push makes one pread(2) per
    /// `readAhead` bytes, not one per record (25,600 calls for 100 MiB of 4 KiB records).
    private var readBlock: (start: Int, bytes: [UInt8])?

    /// Plaintext bytes read from the file at once.
    static let readAhead = 256 << 10

    init(_ share: OutgoingShare, keys: ShareKeys) throws(HandoffError) {
        guard let id = share.wireTransferID else {
            throw HandoffError(.handoffFailed, "the transfer id \(share.transferID) is not 16 hex digits")
        }
        let size = try share.size()
        guard size <= Int(UInt32.max) else { throw HandoffError(.itemTooLarge, "the item is larger than 4 GiB") }
        metadata = share.metadata.encoded
        header = TransferHeader(transferID: id, sequence: 0,
                                metadataLength: UInt16(metadata.count + Sodium.aeadTagLength),
                                payloadLength: UInt32(size), recordSize: UInt16(min(max(share.recordSize, 256), 65535)))
        // DATA and ACCEPT carry 32-bit offsets: a stream past 4 GiB could not be sent or resumed.
        guard header.streamLength <= Int(UInt32.max) else {
            throw HandoffError(.itemTooLarge, "the item is larger than a push carries (at most "
                                   + "\(ByteFormat.string(ShareLimits.largestItem)))")
        }
        sealer = TransferSealer(header: header, key: keys.transferKey(id))
        content = share.content
        if case .file(let url) = share.content {
            file = open(url.path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else {
                throw HandoffError(.handoffFailed, "cannot open \(url.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit { if file >= 0 { close(file) } }

    /// Sealed bytes `range` of the stream.
    func bytes(_ range: Range<Int>) throws(HandoffError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        try append(range, to: &out)
        return out
    }

    /// The PUSH-DATA frame of sealed bytes `range` (`ShareFrame.data(…).encoded()`), built in place: the bytes are
    /// copied once, from the sealed records into the frame.
    func dataFrame(_ range: Range<Int>) throws(HandoffError) -> [UInt8] {
        var frame = ShareFrame.data(transferID: header.transferID, offset: UInt32(range.lowerBound), bytes: []).encoded()
        frame.reserveCapacity(frame.count + range.count)
        try append(range, to: &frame)
        return frame
    }

    /// Appends sealed bytes `range` of the stream to `out`.
    private func append(_ range: Range<Int>, to out: inout [UInt8]) throws(HandoffError) {
        var position = range.lowerBound
        while position < range.upperBound {
            let index = record(containing: position)
            let span = header.range(ofRecord: index)
            let sealed = try sealedRecord(index)
            let end = min(range.upperBound, span.upperBound)
            out += sealed[(position - span.lowerBound)..<(end - span.lowerBound)]
            position = end
        }
    }

    private func record(containing offset: Int) -> Int {
        if offset < Int(header.metadataLength) { return 0 }
        return (offset - Int(header.metadataLength)) / (Int(header.recordSize) + Sodium.aeadTagLength) + 1
    }

    private func sealedRecord(_ index: Int) throws(HandoffError) -> [UInt8] {
        if let cached, cached.index == index { return cached.sealed }
        let sealed: [UInt8]
        if index == 0 {
            sealed = sealer.sealRecord(0, metadata)
        } else {
            let start = (index - 1) * Int(header.recordSize)
            let length = min(Int(header.recordSize), Int(header.payloadLength) - start)
            sealed = sealer.sealRecord(index, try plaintext(start, length))
        }
        cached = (index, sealed)
        return sealed
    }

    private func plaintext(_ start: Int, _ length: Int) throws(HandoffError) -> ArraySlice<UInt8> {
        switch content {
        case .bytes(let bytes):
            return bytes[start..<start + length]
        case .file:
            if let block = readBlock, start >= block.start, start + length <= block.start + block.bytes.count {
                return block.bytes[(start - block.start)..<(start - block.start + length)]
            }
            let count = min(max(length, Self.readAhead), Int(header.payloadLength) - start)
            let bytes = try read(start, count)
            readBlock = (start, bytes)
            return bytes[0..<length]
        }
    }

    /// `length` bytes of the item's file from `start`, read straight into the array (not zeroed first: every byte
    /// is read, or nothing is returned).
    private func read(_ start: Int, _ length: Int) throws(HandoffError) -> [UInt8] {
        guard file >= 0 else { throw HandoffError(.handoffFailed, "the item's file is not open") }
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(length, 1)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < length {
                let count = pread(file, base + done, length - done, off_t(start + done))
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else {
                    failure = "cannot read the item's file: \(String(cString: strerror(errno)))"
                    break
                }
                guard count > 0 else {
                    failure = "the item's file changed length while it was being sent"
                    break
                }
                done += count
            }
            initialized = done
        }
        if let failure { throw HandoffError(.handoffFailed, failure) }
        return bytes
    }
}
