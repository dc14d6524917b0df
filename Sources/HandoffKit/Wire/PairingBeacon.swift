/// The advertisement of a device waiting to be paired: `version ‖ "PAIRho!" (7) ‖ name (16, UTF-8, zero-padded)`.
/// Deliberately readable: pairing mode is short and started by the user, who must recognise the device by name.
/// A regular beacon carries a random nonce where the marker is, so it is mistaken for one with probability 2^-56.
enum PairingBeacon {
    static let marker: [UInt8] = Array("PAIRho!".utf8)
    static let nameLength = 16

    static func encode(name: String) -> [UInt8] {
        var nameBytes: [UInt8] = []
        for character in name {
            if nameBytes.count + character.utf8.count > nameLength { break }
            nameBytes += character.utf8
        }
        return [WireProtocol.version] + marker + nameBytes + [UInt8](repeating: 0, count: nameLength - nameBytes.count)
    }

    /// The advertised name, or nil when `bytes` is not a pairing beacon.
    static func decode(_ bytes: [UInt8]) -> String? {
        guard bytes.count == WireProtocol.beaconLength, bytes[0] == WireProtocol.version,
              Array(bytes[1...7]) == marker else { return nil }
        let name = bytes[8...].prefix { $0 != 0 }
        return String(decoding: name, as: UTF8.self)
    }
}
