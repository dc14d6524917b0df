import FoundationEssentials

/// What a trusted peer recovers from a beacon.
package struct Beacon: Sendable, Equatable {
    /// The advertising device.
    package var device: UUID
    /// Keyed 4-byte tag of the activity type (see `GroupKeys.typeTag`).
    package var typeTag: [UInt8]
    /// The activity's sequence number; grows with every update.
    package var sequence: UInt32
    /// The beacon's random nonce (7 bytes); distinguishes rotations of the same sequence.
    package var nonce: [UInt8]
}

/// Seals and opens the 24-byte beacon (layout in Docs/protocol.md):
/// `version(1) ‖ nonce(7) ‖ XChaCha20(encKey, nonce)⊕(typeTag(4) ‖ sequence(4)) ‖ BLAKE2b-MAC(macKey)[0..<8]`.
struct BeaconCodec: Sendable {
    static let nonceLength = 7
    static let bodyLength = 8
    static let tagLength = 8

    private let keys: GroupKeys
    private let candidates: [(device: UUID, encryption: [UInt8], mac: [UInt8])]

    /// A codec that opens beacons of `devices` (the trust list) under `group`.
    init(group: TrustGroup, devices: [UUID]) {
        keys = GroupKeys(group)
        candidates = devices.map { id in
            let k = GroupKeys(group).beaconKeys(for: id)
            return (id, k.encryption, k.mac)
        }
    }

    /// Seals a beacon for `device` with a fresh random nonce.
    func seal(device: UUID, typeTag: [UInt8], sequence: UInt32, version: UInt8 = WireProtocol.version) -> [UInt8] {
        let k = keys.beaconKeys(for: device)
        let nonce = Sodium.randomBytes(BeaconCodec.nonceLength)
        var plain = ByteWriter(capacity: 8)
        plain.raw(typeTag.prefix(4))
        plain.u32(sequence)
        let body = Sodium.streamXOR(plain.bytes, nonce: BeaconCodec.streamNonce(nonce), key: k.encryption)
        let head = [version] + nonce + body
        return head + BeaconCodec.tag(head, key: k.mac)
    }

    /// Opens `bytes`; nil unless it is a current-version beacon authenticated by one of the trusted devices.
    /// Never traps on arbitrary input.
    func open(_ bytes: [UInt8]) -> Beacon? {
        guard bytes.count == WireProtocol.beaconLength, bytes[0] == WireProtocol.version else { return nil }
        let head = Array(bytes[0..<16])
        let tag = Array(bytes[16..<24])
        for candidate in candidates where Sodium.constantTimeEqual(BeaconCodec.tag(head, key: candidate.mac), tag) {
            let nonce = Array(bytes[1..<8])
            let plain = Sodium.streamXOR(Array(bytes[8..<16]), nonce: BeaconCodec.streamNonce(nonce),
                                         key: candidate.encryption)
            var reader = ByteReader(plain)
            guard let typeTag = reader.take(4), let sequence = reader.u32() else { return nil }
            return Beacon(device: candidate.device, typeTag: typeTag, sequence: sequence, nonce: nonce)
        }
        return nil
    }

    /// The version byte of something that looks like a beacon, for diagnostics.
    static func version(of bytes: [UInt8]) -> UInt8? { bytes.first }

    private static func streamNonce(_ nonce: [UInt8]) -> [UInt8] {
        nonce + [UInt8](repeating: 0, count: 24 - nonce.count)
    }

    private static func tag(_ head: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(Sodium.genericHash(head, key: key, length: 16).prefix(tagLength))
    }
}
