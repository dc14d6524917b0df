import BlueZ
import HandoffKit

extension BluetoothUUID {
    /// The wire protocol's UUID in BlueZ's type. A `WireUUID` is 16 bytes written out as 8-4-4-4-12 hex digits,
    /// which BlueZ's parser always takes; if the two ever disagree, the transfer service must not come up under
    /// another UUID (it once fell back to the beacon's 16-bit one without a word), so this stops the program.
    init(_ uuid: WireUUID) {
        guard let parsed = BluetoothUUID(uuid.string) else {
            preconditionFailure("BlueZ's BluetoothUUID refuses the wire protocol's UUID \(uuid)")
        }
        self = parsed
    }
}
