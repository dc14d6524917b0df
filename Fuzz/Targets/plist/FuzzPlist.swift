import Foundation
import FuzzSupport
@testable import HandoffKit

/// The payload property list, as a peer's transfer or a local caller's userInfo delivers it.
///
/// Checks, beyond "never traps and never leaks": whatever the reader accepts, the writer writes back, and the
/// reader reads that to the same bytes again (so no accepted value is one we cannot send on); and every string it
/// decodes is valid UTF-8 when validated again (the reader makes its strings without the standard library's check).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let value = try? BinaryPropertyList.decode(bytes) {
        checkStrings(value)
        guard let once = try? BinaryPropertyList.encode(value),
              let again = try? BinaryPropertyList.decode(once),
              let twice = try? BinaryPropertyList.encode(again), once == twice else {
            fatalError("an accepted property list does not round-trip: \(value)")
        }
    }
    _ = try? PlistValue.dictionary(fromPropertyList: Data(bytes))
    // The root read as entries (what `ActivitySnapshot(payload:)` does) agrees with the root dictionary.
    let dictionary = Result { () throws(BinaryPropertyListError) in try BinaryPropertyList.decodeDictionary(bytes) }
    let entries = Result { () throws(BinaryPropertyListError) in try BinaryPropertyList.decodeRootEntries(bytes) }
    switch (dictionary, entries) {
    case (.success(let dictionary), .success(let entries)):
        // Compared as bytes, as above: a NaN real is not equal to itself as a value.
        let fromEntries = try? BinaryPropertyList.encode(entries: entries)
        guard entries.count == dictionary.count,
              fromEntries == (try? BinaryPropertyList.encode(.dictionary(dictionary))) else {
            fatalError("the root's entries differ from its dictionary")
        }
    case (.failure(let expected), .failure(let error)):
        guard error == expected else { fatalError("the root's entries refused with \(error), not \(expected)") }
    default:
        fatalError("the root's entries and its dictionary disagree: \(dictionary) against \(entries)")
    }
    // Compared as bytes: a NaN real is not equal to itself as a value.
    if let snapshot = try? ActivitySnapshot(payload: Data(bytes)) {
        guard let payload = try? snapshot.encodedPayload(),
              let again = try? ActivitySnapshot(payload: payload).encodedPayload(), again == payload else {
            fatalError("an accepted payload does not round-trip: \(snapshot)")
        }
    }
    return 0
}

/// Stops on a decoded string (key or value, at any depth) whose UTF-8 does not validate.
private func checkStrings(_ value: PlistValue) {
    func check(_ string: String) {
        guard String(validating: Array(string.utf8), as: UTF8.self) != nil else {
            fatalError("the reader made a string of invalid UTF-8: \(Array(string.utf8))")
        }
    }
    switch value {
    case .string(let string): check(string)
    case .array(let items): items.forEach(checkStrings)
    case .dictionary(let entries):
        for (key, item) in entries {
            check(key)
            checkStrings(item)
        }
    default: break
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    Fuzz.writeSeedsIfAsked(try seeds())
    return 0
}

private func seeds() throws -> [[UInt8]] {
    var note = ActivitySnapshot(activityType: "org.handoff.note")
    note.title = "Groceries"
    note.userInfo = ["name": "groceries", "title": "Groceries", "content": "milk\neggs\ncafé ☕\n"]
    note.keywords = ["list"]
    var mixed = ActivitySnapshot(activityType: "org.handoff.web")
    mixed.userInfo = ["a": [1, 2.5, .data(Data([0, 255])), ["b": []]], "n": -5, "big": .integer(.max),
                      "u": .url(URL(fileURLWithPath: "/tmp/x")), "t": true, "d": .date(Date(timeIntervalSince1970: 1e9))]
    mixed.webpageURL = URL(fileURLWithPath: "/index.html")
    mixed.expirationDate = Date(timeIntervalSince1970: 2e9)
    mixed.requiredUserInfoKeys = ["a"]
    // Non-ASCII text long enough for the transcoders' chunked loops, with a surrogate pair among it.
    var accents = ActivitySnapshot(activityType: "org.handoff.note")
    accents.userInfo = ["content": .string(String(repeating: "café crème, œufs — du pain ☕ 🙂\n", count: 4))]
    return [[UInt8](try note.encodedPayload()), [UInt8](try mixed.encodedPayload()),
            [UInt8](try accents.encodedPayload())]
}
