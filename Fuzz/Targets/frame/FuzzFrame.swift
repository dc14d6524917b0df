import Foundation
import FuzzSupport
@testable import HandoffKit

/// Transfer, pairing and fast-lane frames: every value a peer writes to our characteristics, notifies to us or
/// sends on a lane connection. The input is a sequence of frames (``Fuzz/pieces(_:)``); pairing and rekey fragments
/// are reassembled as the engine does. Every decoded frame must encode to bytes that decode to it again; a lane
/// offer's plaintext (what opens under the lane key) is decoded as well, since a paired peer chooses it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var pairing = PairingFragments()
    var rekey = PairingFragments()
    for piece in Fuzz.pieces(Fuzz.bytes(data, size)) {
        if let lane = LaneFrame.decode(piece), LaneFrame.decode(lane.encoded()) != lane {
            fatalError("a decoded lane frame does not round-trip: \(lane)")
        }
        if let offer = LaneOffer(decoding: piece) {
            _ = offer.endpoints
            if LaneOffer(decoding: offer.encoded)?.encoded != offer.encoded {
                fatalError("a decoded lane offer does not round-trip: \(piece)")
            }
        }
        guard let frame = try? TransferFrame.decode(piece) else { continue }
        if (try? TransferFrame.decode(frame.encoded())) != frame {
            fatalError("a decoded frame does not round-trip: \(frame)")
        }
        switch frame {
        case .open(let header, _):
            _ = header.streamLength
            for index in 0...min(header.recordCount, 3) { _ = header.range(ofRecord: index) }
        case .pair(_, let index, let count, let chunk, _):
            _ = try? pairing.add(index: index, count: count, chunk: chunk)
        case .rekey(_, let index, let count, let chunk):
            if let message = try? rekey.add(index: index, count: count, chunk: chunk) {
                _ = try? JSONDecoder().decode(RekeyMessage.self, from: Data(message))
            }
        default:
            break
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    guard let id = TransferID(bytes: [UInt8](repeating: 3, count: TransferID.byteCount)),
          let counting = TransferID(bytes: Array(1...UInt8(TransferID.byteCount))),
          let session = Nonce(bytes: [UInt8](repeating: 5, count: Nonce.byteCount)),
          let nonce = Nonce(bytes: [UInt8](repeating: 1, count: Nonce.byteCount)) else { return 0 }
    Fuzz.writeSeedsIfAsked(try {
        let pair = try PairingFragments.split([UInt8](repeating: 7, count: 300), session: session, maximumValue: 180,
                                              fromServer: false).map { $0.encoded() }
        return [
            Fuzz.joined([TransferFrame.request(sequence: 5, nonce: nonce,
                                               mac: Array(repeating: 2, count: 16)).encoded(),
                         TransferFrame.fetch(transferID: id, from: 0, to: 100).encoded(),
                         TransferFrame.done(transferID: id, mac: Array(repeating: 4, count: 16)).encoded()]),
            Fuzz.joined([TransferFrame.open(TransferHeader(transferID: id, sequence: 1, metadataLength: 40,
                                                           payloadLength: 9000, recordSize: 4096),
                                            requestNonce: nonce).encoded(),
                         TransferFrame.data(transferID: id, offset: 77, bytes: [1, 2, 3]).encoded(),
                         TransferFrame.error(context: ErrorContext(id), code: 4612, tag: Array(repeating: 0xA5, count: 16),
                                             message: "no").encoded()]),
            Fuzz.joined(pair),
            Fuzz.joined([TransferFrame.rekey(session: session, index: 0, count: 1,
                                             chunk: Array(#"{"epoch":2}"#.utf8)).encoded(),
                         TransferFrame.rekeyApplied(session: session).encoded()]),
            // A DONE asking the source to pause, then the plain DONE after it (wire v2's addition, Docs/protocol.md).
            Fuzz.joined([TransferFrame.doneAsking(transferID: counting, requests: 1,
                                                  mac: Array(repeating: 0xAA, count: 16)).encoded(),
                         TransferFrame.done(transferID: counting, mac: Array(repeating: 0xAA, count: 16)).encoded()]),
            Fuzz.joined([LaneFrame.ask(transferID: id, mac: Array(repeating: 6, count: 16)).encoded(),
                         LaneFrame.offer(transferID: id, nonce: Array(repeating: 8, count: 24),
                                         sealed: Array(repeating: 9, count: 40)).encoded(),
                         LaneFrame.hello(transferID: id, mac: Array(repeating: 6, count: 16)).encoded()]),
        ]
    }())
    return 0
}
