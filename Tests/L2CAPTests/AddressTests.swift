import CBluetooth
import Testing

@testable import L2CAP

@Suite("L2CAPAddress")
struct AddressTests {
    @Test("parses six hex octets in either case and prints them upper-case")
    func parses() throws {
        let address = try #require(L2CAPAddress("00:aa:0B:c1:D2:ff", kind: .leRandom))
        #expect(address.address == "00:AA:0B:C1:D2:FF")
        #expect(address.kind == .leRandom)
        #expect(address.bytes == [0x00, 0xAA, 0x0B, 0xC1, 0xD2, 0xFF])
        #expect(address.description == "00:AA:0B:C1:D2:FF (random)")
    }

    @Test("rejects what is not an address", arguments: [
        "", "00:11:22:33:44", "00:11:22:33:44:55:66", "0:11:22:33:44:55", "000:11:22:33:44:55",
        "00-11-22-33-44-55", "00:11:22:33:44:5G", "00:11:22:33:44:", ":00:11:22:33:44", "00:11:22:33:44:+5",
        "００:11:22:33:44:55",
    ])
    func rejects(_ text: String) {
        #expect(L2CAPAddress(text, kind: .lePublic) == nil)
    }

    @Test("takes BlueZ's AddressType: public and random, nothing else")
    func addressType() throws {
        #expect(try #require(L2CAPAddress("C0:FF:EE:00:00:01", addressType: "public")).kind == .lePublic)
        #expect(try #require(L2CAPAddress("C0:FF:EE:00:00:01", addressType: "random")).kind == .leRandom)
        #expect(L2CAPAddress("C0:FF:EE:00:00:01", addressType: "Public") == nil)
        #expect(L2CAPAddress("C0:FF:EE:00:00:01", addressType: "bredr") == nil)
        #expect(L2CAPAddress("C0:FF:EE:00:00:01", addressType: "") == nil)
        #expect(L2CAPAddress.Kind.lePublic.addressType == "public")
        #expect(L2CAPAddress.Kind.leRandom.addressType == "random")
    }

    @Test("the same address of another type is another peer; case does not matter")
    func identity() throws {
        let lower = try #require(L2CAPAddress("aa:bb:cc:dd:ee:ff", kind: .lePublic))
        let upper = try #require(L2CAPAddress("AA:BB:CC:DD:EE:FF", kind: .lePublic))
        let random = try #require(L2CAPAddress("AA:BB:CC:DD:EE:FF", kind: .leRandom))
        #expect(lower == upper)
        #expect(Set([lower, upper, random]).count == 2)
        #expect(lower != random)
    }

    @Test("the kernel's sockaddr_l2 holds the octets reversed, the type and the PSM")
    func socketAddress() throws {
        let address = try #require(L2CAPAddress("01:02:03:04:05:06", kind: .leRandom))
        var raw = Socket.socketAddress(of: address, psm: 0x0081)
        #expect(raw.l2_family == 31)  // AF_BLUETOOTH
        #expect(raw.l2_bdaddr.b.0 == 0x06 && raw.l2_bdaddr.b.5 == 0x01)
        #expect(raw.l2_bdaddr_type == 2)  // BDADDR_LE_RANDOM
        #expect(raw.l2_psm == 0x0081)  // little-endian host: htobs is the identity
        var bytes = [UInt8](repeating: 0, count: 6)
        cbt_sockaddr_l2_bytes(&raw, &bytes)
        #expect(bytes == address.bytes)
        #expect(cbt_sockaddr_l2_psm(&raw) == 0x0081)
    }
}
