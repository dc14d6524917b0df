/// Describes one transfer's sealed stream: a metadata record (the activity type) followed by payload records.
struct TransferHeader: Sendable, Equatable {
    /// Random id of this transfer; the transfer key is derived from it.
    var transferID: TransferID
    /// The sequence the source is serving (the newest of the activity the client asked for).
    var sequence: UInt32
    /// Sealed length of the metadata record.
    var metadataLength: UInt16
    /// Plaintext length of the payload (the binary plist).
    var payloadLength: UInt32
    /// Plaintext bytes per payload record (the last one may be shorter).
    var recordSize: UInt16

    static let encodedLength = 20

    var encoded: [UInt8] {
        var w = ByteWriter()
        w.raw(transferID.bytes); w.u32(sequence); w.u16(metadataLength); w.u32(payloadLength); w.u16(recordSize)
        return w.bytes
    }

    init(transferID: TransferID, sequence: UInt32, metadataLength: UInt16, payloadLength: UInt32, recordSize: UInt16) {
        self.transferID = transferID
        self.sequence = sequence
        self.metadataLength = metadataLength
        self.payloadLength = payloadLength
        self.recordSize = recordSize
    }

    init?(reading r: inout ByteReader) {
        guard let id = r.transferID(), let s = r.u32(), let m = r.u16(), let p = r.u32(),
              let size = r.u16(), size > 0, m >= UInt16(Sodium.aeadTagLength) else { return nil }
        self.init(transferID: id, sequence: s, metadataLength: m, payloadLength: p, recordSize: size)
    }

    /// Number of payload records.
    var recordCount: Int { (Int(payloadLength) + Int(recordSize) - 1) / Int(recordSize) }

    /// Total length of the sealed stream (metadata record plus payload records).
    var streamLength: Int { Int(metadataLength) + Int(payloadLength) + recordCount * Sodium.aeadTagLength }

    /// Byte range of record `index` (0 = metadata) in the sealed stream.
    func range(ofRecord index: Int) -> Range<Int> {
        if index == 0 { return 0..<Int(metadataLength) }
        let sealed = Int(recordSize) + Sodium.aeadTagLength
        let start = Int(metadataLength) + (index - 1) * sealed
        let plain = min(Int(recordSize), Int(payloadLength) - (index - 1) * Int(recordSize))
        return start..<(start + plain + Sodium.aeadTagLength)
    }
}
