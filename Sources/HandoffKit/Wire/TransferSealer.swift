import FoundationEssentials

/// Seals a transfer's stream and opens its records. Each record is XChaCha20-Poly1305 under a per-transfer key;
/// the nonce is the record index and the additional data binds the header, the index and a last-record flag,
/// so records cannot be altered, reordered, truncated or moved to another transfer.
struct TransferSealer: Sendable {
    let header: TransferHeader
    private let key: [UInt8]

    init(header: TransferHeader, keys: GroupKeys, source: UUID) {
        self.header = header
        self.key = keys.transferKey(source: source, transferID: header.transferID)
    }

    /// A sealer under a key derived elsewhere (a push's transfer key, `ShareKeys`).
    init(header: TransferHeader, key: [UInt8]) {
        self.header = header
        self.key = key
    }

    /// Builds the header and the complete sealed stream for `activityType` and `payload`.
    static func seal(activityType: String, payload: Data, sequence: UInt32, recordSize: Int, keys: GroupKeys,
                     source: UUID) -> (TransferHeader, [UInt8]) {
        let typeBytes = Array(activityType.utf8)
        let header = TransferHeader(transferID: .random(), sequence: sequence,
                                    metadataLength: UInt16(1 + typeBytes.count + Sodium.aeadTagLength),
                                    payloadLength: UInt32(payload.count), recordSize: UInt16(recordSize))
        let sealer = TransferSealer(header: header, keys: keys, source: source)
        var stream = sealer.sealRecord(0, [UInt8(typeBytes.count)] + typeBytes)
        stream.reserveCapacity(header.streamLength)
        let bytes = [UInt8](payload)
        for index in 1...max(header.recordCount, 1) where index <= header.recordCount {
            let start = (index - 1) * recordSize
            stream += sealer.sealRecord(index, Array(bytes[start..<min(start + recordSize, bytes.count)]))
        }
        return (header, stream)
    }

    func sealRecord(_ index: Int, _ plaintext: [UInt8]) -> [UInt8] {
        sealRecord(index, plaintext[...])
    }

    /// Seals record `index` from where its plaintext sits in a larger buffer.
    func sealRecord(_ index: Int, _ plaintext: ArraySlice<UInt8>) -> [UInt8] {
        Sodium.seal(plaintext, additionalData: additionalData(index), nonce: nonce(index), key: key)
    }

    /// Opens record `index`; nil when it fails authentication.
    func openRecord(_ index: Int, _ sealed: [UInt8]) -> [UInt8]? {
        openRecord(index, sealed[...])
    }

    /// Opens record `index` where it sits in a larger buffer.
    func openRecord(_ index: Int, _ sealed: ArraySlice<UInt8>) -> [UInt8]? {
        Sodium.open(sealed, additionalData: additionalData(index), nonce: nonce(index), key: key)
    }

    /// Opens the metadata record and returns the activity type; nil when forged or malformed.
    func openMetadata(_ sealed: [UInt8]) -> String? {
        guard let plain = openRecord(0, sealed), let length = plain.first, plain.count == 1 + Int(length) else {
            return nil
        }
        return String(validating: plain[1...], as: UTF8.self)
    }

    /// MAC the client sends in `done` to prove it could open the transfer.
    func doneMAC() -> [UInt8] {
        KeyedHash(key: key).mac(.done, header.transferID.bytes)
    }

    /// MAC of a DONE that asks `requests` of the source (not empty): the requests are authenticated with it.
    func doneMAC(requests: UInt8) -> [UInt8] {
        KeyedHash(key: key).mac(.done, header.transferID.bytes, [requests])
    }

    private func nonce(_ index: Int) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: Sodium.aeadNonceLength)
        var w = ByteWriter()
        w.u32(UInt32(index))
        n.replaceSubrange(20..<24, with: w.bytes)
        return n
    }

    private func additionalData(_ index: Int) -> [UInt8] {
        var w = ByteWriter()
        w.u8(WireProtocol.version)
        w.raw(header.encoded)
        w.u32(UInt32(index))
        w.u8(index == header.recordCount ? 1 : 0)
        return w.bytes
    }
}
