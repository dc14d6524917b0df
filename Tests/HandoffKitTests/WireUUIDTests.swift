import Foundation
@testable import HandoffKit
import Testing

/// The transfer service's UUIDs are what a peer looks for: spelt otherwise, two devices would not find each
/// other's service. They are typed (16 bytes), so a constant cannot be misspelt into something that fails to
/// parse, and they read as Docs/protocol.md and the VM's hostile peer have them.
@Suite struct WireUUIDTests {
    @Test func theProtocolsUUIDsSpellAsDocumented() throws {
        let expected = [
            (WireProtocol.transferServiceUUID, "6c1a0000-6e6f-4c8f-9d5e-68616e646f66"),
            (WireProtocol.requestCharacteristicUUID, "6c1a0001-6e6f-4c8f-9d5e-68616e646f66"),
            (WireProtocol.dataCharacteristicUUID, "6c1a0002-6e6f-4c8f-9d5e-68616e646f66"),
            (WireProtocol.psmCharacteristicUUID, "abdd3056-28fa-441d-a470-55a75a52553a"),
        ]
        let protocolDoc = try String(
            contentsOf: URL(filePath: #filePath).deletingLastPathComponent()
                .appending(path: "../../Docs/protocol.md").standardized,
            encoding: .utf8)
        for (uuid, text) in expected {
            #expect(uuid.string == text)
            #expect(uuid.description == text)
            #expect(uuid.bytes.count == 16)
            #expect(protocolDoc.contains("`\(text)`"), "Docs/protocol.md does not list \(text)")
        }
        #expect(Set(expected.map(\.0)).count == expected.count)
    }

    @Test func bytesAreMostSignificantFirstWithLeadingZerosKept() {
        let uuid = WireUUID(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f)
        #expect(uuid.bytes == Array(0...15))
        #expect(uuid.string == "00010203-0405-0607-0809-0a0b0c0d0e0f")
        #expect(WireUUID(0, 0).string == "00000000-0000-0000-0000-000000000000")
        #expect(WireUUID(.max, .max).string == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }
}
