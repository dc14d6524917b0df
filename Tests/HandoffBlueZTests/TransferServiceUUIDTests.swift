import BlueZ
@testable import HandoffBlueZ
import HandoffKit
import Testing

/// The GATT service BlueZ publishes carries the wire protocol's UUIDs, not a stand-in: a service that came up
/// under another UUID (the beacon's 16-bit one, as a silent fallback once did) would never be found by a peer.
@Suite struct TransferServiceUUIDTests {
    @Test func theServicePublishesTheWireProtocolsUUIDs() {
        let published = [BlueZTransferService.serviceUUID, BlueZTransferService.requestUUID,
                         BlueZTransferService.dataUUID, BlueZTransferService.psmUUID]
        let wire = [WireProtocol.transferServiceUUID, WireProtocol.requestCharacteristicUUID,
                    WireProtocol.dataCharacteristicUUID, WireProtocol.psmCharacteristicUUID]
        #expect(published.map(\.string) == wire.map(\.string))
        #expect(Set(published).count == 4)
        #expect(!published.contains(BluetoothUUID(short: WireProtocol.beaconServiceUUID16)))
    }
}
