import HandoffShared
import FoundationEssentials
@testable import HandoffKit
import Testing

/// Issue 25 §2: shared references may not make the reader copy more than `Limits.maximumDecodedSize` bytes,
/// whatever the shape. Python's plistlib accepts these inputs (it shares the string); we refuse them by name.
@Suite struct PlistAmplificationTests {
    /// `{"k": [s, s, …]}`: an array of `references` references to one ASCII string of `length` bytes.
    static func sharedString(references: Int, length: Int) -> [UInt8] {
        func sized(_ marker: UInt8, _ count: Int) -> [UInt8] {
            count < 15 ? [marker | UInt8(count)]
                : [marker | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(count).bigEndian, Array.init)
        }
        let objects: [[UInt8]] = [
            [0xD1, 1, 2],
            [0x51, 0x6B],
            sized(0xA0, references) + [UInt8](repeating: 3, count: references),
            sized(0x50, length) + [UInt8](repeating: 0x61, count: length),
        ]
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 1]
        for field in [UInt64(objects.count), 0, UInt64(table)] {
            bytes += withUnsafeBytes(of: field.bigEndian, Array.init)
        }
        return bytes
    }

    @Test("the issue's input: 512 KiB, 262,144 references to one 256 KiB string (64 GiB copied) is refused")
    func theIssuesInputIsRefused() throws {
        let bytes = Self.sharedString(references: 262_144, length: 256 << 10)
        #expect(bytes.count < 513 << 10)
        #expect(throws: BinaryPropertyListError.decodesTooLarge(limit: 32 << 20)) {
            try BinaryPropertyList.decode(bytes)
        }
        // What a peer's payload or a caller's userInfo gets: a HandoffError that says why.
        let error = try #require(throws: HandoffError.self) {
            try PlistValue.dictionary(fromPropertyList: Data(bytes))
        }
        #expect(error.code == .corruptPayload)
        #expect(ErrorChain.text(error).contains("decodes to more than 33554432 bytes"))
    }

    @Test("160 references to a 256 KiB string (40 MiB decoded from 300 KiB) are refused, as entries too")
    func aSmallerAmplificationIsRefused() {
        let bytes = Self.sharedString(references: 160, length: 256 << 10)
        let error = #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.decode(bytes) }
        #expect(error?.description == "decodes to more than 33554432 bytes (each reference to a shared object "
            + "counts its full size)")
        let entries = #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.decodeRootEntries(bytes) }
        #expect(entries == error)
    }

    @Test("sharing that stays within the budget is accepted, and the budget is exact")
    func honestSharingIsAccepted() throws {
        let bytes = Self.sharedString(references: 1000, length: 100)
        let value = try BinaryPropertyList.decode(bytes)
        #expect(value == .dictionary(["k": .array(Array(repeating: .string(String(repeating: "a", count: 100)),
                                                         count: 1000))]))
        // The root, the key, the array: three values; then 1,000 strings of 100 bytes, each a value.
        let cost = BinaryPropertyList.Limits.decodedValueCost
        let exact = 3 * cost + 1 + 1000 * (cost + 100)
        var limits = BinaryPropertyList.Limits.standard
        limits.maximumDecodedSize = exact
        #expect(try BinaryPropertyList.decode(bytes, limits: limits) == value)
        limits.maximumDecodedSize = exact - 1
        #expect(throws: BinaryPropertyListError.decodesTooLarge(limit: exact - 1)) {
            try BinaryPropertyList.decode(bytes, limits: limits)
        }
    }
}
