import Foundation
import FuzzSupport
@testable import HandoffKit

/// The sealed-stream reader: a transfer's header, metadata record and payload records, as the source sends them.
///
/// First byte even: the rest is `header (20 bytes) ‖ stream`, opened record by record under a fixed group key
/// (what anyone in range can send). Odd: the rest is a payload that an authenticated source sealed (what a paired
/// device can send): it must open to exactly those bytes, which then go to the payload decoder.
private let keys: GroupKeys = {
    do { try Sodium.ensureInitialized() } catch { fatalError("libsodium: \(error)") }
    return GroupKeys(TrustGroup(key: Data(repeating: 0x42, count: 32), epoch: 1))
}()
private let source = Fuzz.uuid(1)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSealedStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    if mode.isMultiple(of: 2) {
        var reader = ByteReader(Array(bytes.dropFirst()))
        guard let header = TransferHeader(reading: &reader), let stream = reader.take(reader.remaining) else { return 0 }
        let opener = TransferSealer(header: header, keys: keys, source: source)
        guard header.streamLength <= stream.count else { return 0 }
        guard opener.openMetadata(Array(stream[header.range(ofRecord: 0)])) != nil else { return 0 }
        var payload: [UInt8] = []
        for index in 1...max(header.recordCount, 1) where index <= header.recordCount {
            guard let plain = opener.openRecord(index, Array(stream[header.range(ofRecord: index)])) else { return 0 }
            payload += plain
        }
        _ = try? ActivitySnapshot(payload: Data(payload))
    } else {
        let payload = Data(bytes.dropFirst())
        let recordSize = 64 + Int(mode >> 1)
        let (header, stream) = TransferSealer.seal(activityType: "org.handoff.note", payload: payload, sequence: 1,
                                                   recordSize: recordSize, keys: keys, source: source)
        let opener = TransferSealer(header: header, keys: keys, source: source)
        guard opener.openMetadata(Array(stream[header.range(ofRecord: 0)])) == "org.handoff.note" else {
            fatalError("the metadata record does not open")
        }
        var opened: [UInt8] = []
        for index in 1...max(header.recordCount, 1) where index <= header.recordCount {
            guard let plain = opener.openRecord(index, Array(stream[header.range(ofRecord: index)])) else {
                fatalError("record \(index) does not open")
            }
            opened += plain
        }
        guard opened == [UInt8](payload) else { fatalError("the stream opened to other bytes") }
        _ = try? ActivitySnapshot(payload: payload)
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = (keys, source)
    Fuzz.writeSeedsIfAsked(try {
        var note = ActivitySnapshot(activityType: "org.handoff.note")
        note.userInfo = ["content": "milk\neggs\n"]
        let payload = try note.encodedPayload()
        let (header, stream) = TransferSealer.seal(activityType: "org.handoff.note", payload: payload, sequence: 1,
                                                   recordSize: 64, keys: keys, source: source)
        return [[0] + header.encoded + stream, [1] + [UInt8](payload)]
    }())
    return 0
}
