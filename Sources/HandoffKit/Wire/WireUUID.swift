/// A 128-bit UUID of the wire protocol, held as its 16 bytes (most significant first), so a constant cannot be
/// misspelt into something that fails to parse. Radios turn it into their stack's own type (HandoffBlueZ:
/// `BluetoothUUID(_:)`), which refuses it loudly if it ever disagrees.
package struct WireUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes, most significant first.
    package let bytes: [UInt8]

    /// The UUID `high`-`low`, as its two 64-bit halves (`0x6c1a0000_6e6f4c8f`, `0x9d5e6861_6e646f66`).
    package init(_ high: UInt64, _ low: UInt64) {
        bytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) }
            + (0..<8).reversed().map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
    }

    /// Lower-case and dashed, 8-4-4-4-12: `6c1a0000-6e6f-4c8f-9d5e-68616e646f66`.
    package var string: String {
        let hex = bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }

    package var description: String { string }
}
