/// Constants of the HandoffKit wire protocol (see Docs/protocol.md). Radios use these to place the beacon and
/// to build the GATT service; apps never see them (`package`).
package enum WireProtocol {
    /// The wire-protocol version this build speaks; the first byte of every beacon and GATT frame. Version 2 binds
    /// every ERROR to its session and answers a PUSH with a challenge (Docs/protocol.md, "The gate").
    package static let version: UInt8 = 2
    /// Length of the beacon body that goes into ManufacturerData (after the company id) or ServiceData.
    package static let beaconLength = 24
    /// Bluetooth SIG company identifier under which the beacon travels as ManufacturerData
    /// (0xFFFF: reserved for testing; a real deployment would use an assigned identifier or ServiceData).
    package static let manufacturerID: UInt16 = 0xFFFF
    /// 16-bit service UUID under which the beacon may travel as ServiceData instead (from the SIG's
    /// member range; placeholder until one is assigned).
    package static let beaconServiceUUID16: UInt16 = 0xFE2C
    /// The GATT transfer service.
    package static let transferServiceUUID = WireUUID(0x6c1a0000_6e6f4c8f, 0x9d5e6861_6e646f66)
    /// The request characteristic: write (with response), carries client → source frames.
    package static let requestCharacteristicUUID = WireUUID(0x6c1a0001_6e6f4c8f, 0x9d5e6861_6e646f66)
    /// The data characteristic: notify, carries source → client frames.
    package static let dataCharacteristicUUID = WireUUID(0x6c1a0002_6e6f4c8f, 0x9d5e6861_6e646f66)
    /// The PSM characteristic: read, the source's L2CAP LE PSM as a little-endian `uint16` (present only when the
    /// source listens for channels; Apple uses this UUID for the same purpose).
    package static let psmCharacteristicUUID = WireUUID(0xabdd3056_28fa441d, 0xa47055a7_5a52553a)
    /// Longest characteristic value the protocol ever writes or notifies (the ATT maximum).
    package static let maximumValueLength = 512
    /// Smallest ATT MTU a link must offer; below it the link is refused with `radioFailure`.
    package static let minimumMTU = 64

    /// Largest value that fits one ATT PDU on a link with `mtu` (MTU minus the 3-byte ATT header, capped at 512).
    package static func valueLength(forMTU mtu: Int) -> Int {
        min(max(mtu - 3, 0), maximumValueLength)
    }
}
