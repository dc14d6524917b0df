import Foundation
import Testing

@testable import BlueZ

@Suite("Values larger than one ATT attribute")
struct ChunkedValueTests {
    static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }) }

    @Test("3 KB and 64 KB round-trip at MTU 517 and 48, no chunk above one PDU", arguments: [3 * 1024, 64 * 1024])
    func roundTrip(size: Int) throws {
        for mtu in [517, 48] {
            let value = Self.pattern(size)
            let chunkSize = ChunkedValue.chunkSize(mtu: mtu)
            let chunks = ChunkedValue.chunks(of: value, chunkSize: chunkSize)
            #expect(chunks.allSatisfy { $0.count <= chunkSize && $0.count <= 512 })
            var reassembler = ChunkedValue.Reassembler()
            var results: [Data] = []
            for chunk in chunks { if let done = try reassembler.append(chunk) { results.append(done) } }
            #expect(results == [value])
        }
    }

    @Test("an empty value and two values in a row come back whole")
    func sequences() throws {
        var reassembler = ChunkedValue.Reassembler()
        var results: [Data] = []
        for value in [Data(), Self.pattern(100)] {
            for chunk in ChunkedValue.chunks(of: value, chunkSize: 20) {
                if let done = try reassembler.append(chunk) { results.append(done) }
            }
        }
        #expect(results == [Data(), Self.pattern(100)])
    }

    @Test("a header announcing more than the limit is refused, not buffered")
    func limit() {
        var reassembler = ChunkedValue.Reassembler(limit: 10)
        #expect(throws: BlueZError.self) { try reassembler.append(Data([0, 0, 1, 0, 1, 2])) }
    }
}
