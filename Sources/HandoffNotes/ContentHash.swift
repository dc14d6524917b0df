import CSodium
import Foundation

/// The SHA-256 of a note's bytes, as lowercase hex: how "same content" is decided.
public struct ContentHash: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let hex: String

    /// Hashes bytes with libsodium's SHA-256.
    public init(of data: Data) {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = data.withUnsafeBytes { bytes in
            crypto_hash_sha256(&digest, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }
        hex = digest.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// Hashes the UTF-8 bytes of a string.
    public init(of text: String) {
        self.init(of: Data(text.utf8))
    }

    /// Wraps a hex digest read back from disk.
    init(hex: String) {
        self.hex = hex
    }

    /// Decodes from a hex string.
    public init(from decoder: any Decoder) throws {
        hex = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a hex string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// The hex digest.
    public var description: String { hex }
}
