import Foundation
@testable import HandoffKit
import Testing

/// The strict bplist00 reader and writer: round trips with the real Python `plistlib` in both directions, and a
/// typed refusal for every malformation the reader guards against.
@Suite final class BinaryPropertyListTests {
    /// The temporary folders a test made, removed when it ends.
    private var directories: [URL] = []

    deinit {
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: round trips with plistlib

    /// The corpus, as Python literals (evaluated by plistlib's side) and as the values we expect on ours.
    private let corpus: [(python: String, swift: PlistValue)] = [
        (#"{'ascii': 'plain', 'é': 'café ☕', 'emoji': '🙂 note', 'cjk': '日本語', 'nul': 'a\x00b', 'long': 'x' * 300 + 'é'}"#,
         ["ascii": "plain", "é": "café ☕", "emoji": "🙂 note", "cjk": "日本語", "nul": "a\u{0}b",
          "long": .string(String(repeating: "x", count: 300) + "é")]),
        ("{'a': {'b': [1, [2, [3, {'c': [], 'd': {}}]]]}}",
         ["a": ["b": [1, [2, [3, ["c": [], "d": [:]]]]]]]),
        ("{'zero': 0, 'b8': 255, 'b16': 65535, 'b32': 2**32 - 1, 'b64': 2**32, 'max': 2**63 - 1, 'min': -2**63, 'neg': -1}",
         ["zero": 0, "b8": 255, "b16": 65535, "b32": 4_294_967_295, "b64": 4_294_967_296,
          "max": .integer(.max), "min": .integer(.min), "neg": -1]),
        ("{'ref': datetime.datetime(2001, 1, 1), 'd': datetime.datetime(2023, 11, 14, 22, 13, 20), 'old': datetime.datetime(1970, 1, 1)}",
         ["ref": .date(Date(timeIntervalSinceReferenceDate: 0)), "d": .date(Date(timeIntervalSince1970: 1_700_000_000)),
          "old": .date(Date(timeIntervalSince1970: 0))]),
        ("{'empty': b'', 'all': bytes(range(256)), 'big': b'z' * 70000}",
         ["empty": .data(Data()), "all": .data(Data(0...255)), "big": .data(Data(repeating: 0x7A, count: 70000))]),
        ("{'a': [], 'd': {}, 's': '', 't': True, 'f': False, 'half': 0.5, 'neg': -1.25, 'huge': 1e300}",
         ["a": [], "d": [:], "s": "", "t": true, "f": false, "half": 0.5, "neg": -1.25, "huge": 1e300]),
        ("{'k%02d' % i: list(range(i)) for i in range(20)}",
         .dictionary(Dictionary(uniqueKeysWithValues: (0..<20).map { i in
             (String(format: "k%02d", i), PlistValue.array((0..<i).map { .integer(Int64($0)) }))
         }))),
        ("{'link': {'$handoff.url': 'https://example.org/n?id=7'}, 'notlink': {'$handoff.url': 3}}",
         ["link": .url(URL(string: "https://example.org/n?id=7")!), "notlink": ["$handoff.url": 3]]),
    ]

    @Test func plistlibAndWeReadEachOthersCorpus() throws {
        let dir = try temporaryDirectory()
        for (index, item) in corpus.enumerated() {
            try Data(try BinaryPropertyList.encode(item.swift)).write(to: dir.appendingPathComponent("ours-\(index)"))
        }
        let literals = corpus.map(\.python).joined(separator: ",\n    ")
        let output = try python("""
        import datetime, plistlib, sys, os
        corpus = [
            \(literals)
        ]
        for i, expected in enumerate(corpus):
            ours = plistlib.load(open(os.path.join(sys.argv[1], 'ours-%d' % i), 'rb'))
            assert ours == expected, (i, ours, expected)
            plistlib.dump(expected, open(os.path.join(sys.argv[1], 'theirs-%d' % i), 'wb'), fmt=plistlib.FMT_BINARY)
        print(len(corpus))
        """, dir.path)
        #expect(output == "\(corpus.count)\n")
        for (index, item) in corpus.enumerated() {
            let theirs = try [UInt8](Data(contentsOf: dir.appendingPathComponent("theirs-\(index)")))
            #expect(try BinaryPropertyList.decode(theirs) == item.swift, "corpus item \(index)")
        }
    }

    @Test func plistlibsIntegersBeyond64BitsAreRefusedByName() throws {
        let dir = try temporaryDirectory()
        _ = try python("""
        import plistlib, sys
        plistlib.dump({'u': 2**64 - 1}, open(sys.argv[1] + '/big', 'wb'), fmt=plistlib.FMT_BINARY)
        """, dir.path)
        let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent("big")))
        if let error = #expect(throws: (any Error).self, performing: { try BinaryPropertyList.decode(bytes) }) {
            guard case .integerOutOfRange = error as? BinaryPropertyListError else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func equalValuesGiveEqualBytesAndKeysAreShared() throws {
        let value: PlistValue = ["b": ["name": "x"], "a": ["name": "y"], "c": ["name": "x"]]
        let once = try BinaryPropertyList.encode(value)
        #expect(try once == BinaryPropertyList.encode(value))
        // The key "name" is written once: the root + 3 keys + 3 dictionaries + 1 "name" + 3 values = 11 objects.
        #expect(Int(once[once.count - 24 ..< once.count - 16].reduce(0) { $0 << 8 | UInt64($1) }) == 11)
    }

    // MARK: refusals

    /// A plist of hand-written objects: the offset table and trailer are computed (1-byte widths unless given).
    private func plist(_ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: UInt8 = 1,
                       count: UInt64? = nil, tableOffset: UInt64? = nil, extra: [UInt8] = []) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects { offsets.append(bytes.count); bytes += object }
        let table = bytes.count
        for offset in offsets { bytes += be(UInt64(offset), Int(offsetSize)) }
        bytes += extra
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
        bytes += be(count ?? UInt64(objects.count), 8) + be(top, 8) + be(tableOffset ?? UInt64(table), 8)
        return bytes
    }

    private func be(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private func refusal(_ bytes: [UInt8], limits: BinaryPropertyList.Limits = .standard,
                         sourceLocation: SourceLocation = #_sourceLocation) -> BinaryPropertyListError? {
        do {
            let value = try BinaryPropertyList.decode(bytes, limits: limits)
            Issue.record("accepted as \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// Found by `make bench-e2e`: a note whose plist ran 256-300 bytes, its offset table starting past 255 but its
    /// last object before, was written with 1-byte offsets; CoreFoundation refuses that (the offset size must hold
    /// the table's own offset), so `handoff continue` failed with "userInfo is not a property list". Every size
    /// around the 1/2-byte step and the 2/3-byte step is read back by Foundation's own reader now.
    @Test func foundationReadsWhatWeWriteAtEveryOffsetWidthStep() throws {
        for length in Array(150...330) + Array(65_380...65_560) {
            let info: [String: PlistValue] = ["name": "groceries", "title": "Groceries",
                                              "content": .string(String(repeating: "m", count: length))]
            let bytes = try BinaryPropertyList.encode(.dictionary(info))
            let table = bytes.suffix(8).reduce(0) { $0 << 8 | Int($1) }
            let offsetSize = Int(bytes[bytes.count - 26])
            #expect(table < 1 << (8 * offsetSize), "\(bytes.count) bytes: the offset size cannot hold the table's offset")
            let read = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: String]
            #expect(read?["content"]?.count == length, "Foundation could not read the \(bytes.count)-byte plist")
        }
    }

    @Test func aWellFormedHandWrittenPlistIsRead() throws {
        // {"k": [1, "é"]}: a dictionary, an ASCII key, an array, an integer, a UTF-16 string.
        let bytes = plist([[0xD1, 1, 2], [0x51, 0x6B], [0xA2, 3, 4], [0x10, 1], [0x61, 0x00, 0xE9]])
        #expect(try BinaryPropertyList.decode(bytes) == ["k": [1, "é"]])
    }

    @Test func everyStructuralMalformationIsRefusedByName() {
        let key: [UInt8] = [0x51, 0x6B]
        #expect(refusal([]) == .notBinaryPropertyList)
        #expect(refusal(Array("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8)) == .notBinaryPropertyList)
        #expect(refusal(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 32)) == .notBinaryPropertyList)
        #expect(refusal(plist([[0xD0]]), limits: .init(maximumSize: 40)) == .tooLarge(size: 42, limit: 40))
        #expect(refusal(plist([[0xD0]], refSize: 0)) == .invalidTrailer("reference width 0"))
        #expect(refusal(plist([[0xD0]], offsetSize: 9)) == .invalidTrailer("offset width 9"))
        #expect(refusal(plist([[0xD0]], count: 0)) == .invalidTrailer("object count 0"))
        #expect(refusal(plist([[0xD0]], count: .max)) == .invalidTrailer("object count \(UInt64.max)"))
        #expect(refusal(plist([[0xD0]], top: 1)) == .invalidTrailer("root object 1 of 1"))
        #expect(refusal(plist([[0xD0]], tableOffset: 4)) == .invalidTrailer("offset table at 4"))
        #expect(refusal(plist([[0xD0]], count: 2)) == .invalidTrailer("the offset table runs into the trailer"))
        #expect(refusal(plist([[0xD0]], extra: [0, 0, 0])) == .trailingBytes(count: 3))
        // An offset pointing into the offset table itself.
        var wild = plist([[0xD0]])
        wild[9] = 40
        #expect(refusal(wild) == .offsetOutOfBounds(object: 0))
        #expect(refusal(plist([[0xD1, 1, 7], key])) == .referenceOutOfBounds(reference: 7))
        #expect(refusal(plist([[0xD2, 1]])) == .truncatedObject(object: 0))
        #expect(refusal(plist([[0xA1, 0]])) == .cycle(object: 0))
        #expect(refusal(plist([[0xD1, 1, 2], [0xA0], [0x10, 1]])) == .nonStringKey(object: 1))
        #expect(refusal(plist([[0xD2, 1, 1, 2, 2], key, [0x10, 1]])) == .duplicateKey(object: 0, key: "k"))
        // "é" precomposed and decomposed are one Swift key: refused rather than one silently dropped.
        #expect(refusal(plist([[0xD2, 1, 2, 3, 3], [0x61, 0x00, 0xE9], [0x62, 0x00, 0x65, 0x03, 0x01],
                                      [0x10, 1]])) == .duplicateKey(object: 0, key: "é"))
        #expect(refusal(plist([[0xAF, 0x13] + [UInt8](repeating: 0xFF, count: 8)])) == .truncatedObject(object: 0))
        #expect(refusal(plist([[0xAF, 0x40, 1]])) == .invalidLength(object: 0))
    }

    @Test func everyValueMalformationIsRefusedByName() {
        func inDict(_ object: [UInt8]) -> [UInt8] { plist([[0xD1, 1, 2], [0x51, 0x6B], object]) }
        #expect(refusal(inDict([0x00])) == .unsupportedObject(object: 2, marker: 0x00))   // null
        #expect(refusal(inDict([0x0F])) == .unsupportedObject(object: 2, marker: 0x0F))   // fill
        #expect(refusal(inDict([0x80, 1])) == .unsupportedObject(object: 2, marker: 0x80)) // UID
        #expect(refusal(inDict([0xC0])) == .unsupportedObject(object: 2, marker: 0xC0))   // set
        #expect(refusal(inDict([0x71, 0x41])) == .unsupportedObject(object: 2, marker: 0x71)) // bplist1x UTF-8
        #expect(refusal(inDict([0x51, 0xC3])) == .invalidString(object: 2))              // not ASCII
        #expect(refusal(inDict([0x61, 0xD8, 0x00])) == .invalidString(object: 2))        // lone surrogate
        #expect(refusal(inDict([0x62, 0x00])) == .truncatedObject(object: 2))
        #expect(refusal(inDict([0x13, 1, 2])) == .truncatedObject(object: 2))
        #expect(refusal(inDict([0x15] + [UInt8](repeating: 0, count: 32))) == .integerOutOfRange(object: 2))
        #expect(refusal(inDict([0x14, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)))
                == .integerOutOfRange(object: 2))
        #expect(refusal(inDict([0x33, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0])) == .invalidDate(object: 2)) // NaN
        #expect(refusal(inDict([0x21, 0, 0])) == .unsupportedObject(object: 2, marker: 0x21))
        #expect(refusal(plist([[0xD1, 1, 2], [0x5C] + Array("$handoff.url".utf8), [0x50]])) == .invalidURL(object: 0))
    }

    @Test func nestingAndSharedExpansionAreBounded() {
        // 70 arrays, each holding the next: deeper than 64.
        var objects = (0..<70).map { [UInt8]([0xA1, UInt8($0 + 1)]) }
        objects.append([0x10, 0])
        #expect(refusal(plist(objects)) == .tooDeep(limit: 64))
        // 40 arrays each referencing the next one twice: 2^40 values from 160 bytes.
        var laughs = (0..<40).map { [UInt8]([0xA2, UInt8($0 + 1), UInt8($0 + 1)]) }
        laughs.append([0x09])
        guard case .tooManyValues? = refusal(plist(laughs)) else {
            Issue.record("billion laughs accepted")
            return
        }
    }

    @Test func theInputThatMadeFoundationLeakIsRefusedByName() {
        // Found by libFuzzer in seconds (issue 14): it passed the old BinaryPlistValidator, failed Foundation's
        // binary parse, and Foundation's text-parser fallback leaked 464 bytes a call. It is in the plist and
        // dbus-arguments seed corpora too.
        let input: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xD3, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x57,
            0x63, 0x6F, 0x6E, 0x74, 0x65, 0x6E, 0x74, 0x54, 0x6E, 0x61, 0x6D, 0x65, 0x55, 0x74, 0x69, 0x74,
            0x6C, 0x65, 0x54, 0x6D, 0x69, 0x6C, 0x6B, 0x59, 0x67, 0x72, 0x6F, 0x63, 0x65, 0x72, 0x69, 0x01,
            0x00, 0x00, 0x00, 0x72, 0x6F, 0x63, 0x65, 0x72, 0x69, 0x65, 0x73, 0x08, 0x0F, 0x17, 0x1C, 0x22,
            0x27, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x3B,
        ]
        if let error = #expect(throws: (any Error).self, performing: {
            try BinaryPropertyList.decodeDictionary(input)
        }) {
            #expect(error as? BinaryPropertyListError != nil, "\(error)")
        }
        if let error = #expect(throws: (any Error).self, performing: {
            try PlistValue.dictionary(fromPropertyList: Data(input))
        }) {
            #expect((error as? HandoffError)?.code == .corruptPayload)
        }
    }

    @Test func theRootMustBeADictionaryWhereOneIsRequired() {
        if let error = #expect(throws: (any Error).self, performing: {
            try BinaryPropertyList.decodeDictionary(plist([[0xA0]]))
        }) {
            #expect(error as? BinaryPropertyListError == .rootNotDictionary)
        }
    }

    /// `decodeRootEntries` (what `ActivitySnapshot(payload:)` reads) must accept and refuse exactly what
    /// `decodeDictionary` does, with the same error, and give the same entries in the order written.
    @Test func rootEntriesAgreeWithTheRootDictionary() throws {
        let key: [UInt8] = [0x51, 0x6B]
        func keyed(_ count: Int, duplicateAt: Int?) -> [UInt8] {
            // A root of `count` keys k00, k01, ... (one repeated at `duplicateAt`), each with the integer 1.
            var objects: [[UInt8]] = [[0xDF, 0x10, UInt8(count)] + (1...count).map { UInt8($0) }
                                      + [UInt8](repeating: UInt8(count + 1), count: count)]
            for index in 0..<count {
                let name = String(format: "k%02d", index == duplicateAt ? 0 : index)
                objects.append([0x53] + Array(name.utf8))
            }
            objects.append([0x10, 1])
            return plist(objects)
        }
        var inputs: [[UInt8]] = [
            [], plist([[0xD0]]), plist([[0xA0]]), plist([[0x10, 1]]), plist([[0xD0]], extra: [0, 0, 0]),
            plist([[0xD1, 1, 7], key]), plist([[0xD2, 1]]), plist([[0xD1, 1, 2], [0xA0], [0x10, 1]]),
            plist([[0xD2, 1, 1, 2, 2], key, [0x10, 1]]), plist([[0xD1, 1, 0], key]),
            plist([[0xD2, 1, 2, 3, 3], [0x61, 0x00, 0xE9], [0x62, 0x00, 0x65, 0x03, 0x01], [0x10, 1]]),
            plist([[0xD1, 1, 2], [0x5C] + Array("$handoff.url".utf8), [0x53] + Array("a:b".utf8)]),
            plist([[0xD1, 1, 2], [0x5C] + Array("$handoff.url".utf8), [0x52, 0x20, 0x20]]),
            plist([[0xD1, 1, 2], [0x5C] + Array("$handoff.url".utf8), [0x10, 3]]),
            plist([[0xD1, 1, 2], key, [0x61, 0xD8, 0x00]]),
        ]
        for count in [15, 16, 17, 40] {
            inputs.append(keyed(count, duplicateAt: nil))
            inputs.append(keyed(count, duplicateAt: count - 1))
            inputs.append(keyed(count, duplicateAt: 1))
        }
        var note = ActivitySnapshot(activityType: "org.handoff.note")
        note.title = "Café"
        note.keywords = ["a", "b"]
        note.userInfo = ["content": "milk, eggs, café ☕ 🙂", "n": 3, "u": .url(URL(fileURLWithPath: "/tmp"))]
        let payload = [UInt8](try note.encodedPayload())
        inputs.append(payload)
        // And the payload with a few bytes changed, from a fixed generator.
        var state: UInt64 = 0xC0DEC
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        for _ in 0..<3000 {
            var bytes = payload
            for _ in 0...next(3) { bytes[next(bytes.count)] = UInt8(next(256)) }
            inputs.append(bytes)
        }
        for bytes in inputs {
            typealias Failure = BinaryPropertyListError
            let expected = Result { () throws(Failure) in try BinaryPropertyList.decodeDictionary(bytes) }
            let entries = Result { () throws(Failure) in try BinaryPropertyList.decodeRootEntries(bytes) }
            switch (expected, entries) {
            case (.success(let dictionary), .success(let entries)):
                // As bytes: a NaN real is not equal to itself as a value.
                #expect(try BinaryPropertyList.encode(entries: entries)
                        == BinaryPropertyList.encode(.dictionary(dictionary)))
                #expect(entries.count == dictionary.count)
            case (.failure(let expected), .failure(let error)):
                #expect(error == expected, "\(bytes)")
            default:
                Issue.record("\(expected) against \(entries) for \(bytes)")
            }
        }
        let written = try BinaryPropertyList.decodeRootEntries(payload).map(\.key)
        #expect(written == written.sorted())
        #expect(written.contains("userInfo"))
    }

    // MARK: helpers

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bplist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        directories.append(dir)
        return dir
    }

    /// Runs `script` with the system `python3`; fails the test with its output unless it exits 0.
    private func python(_ script: String, _ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 failed: \(output)")
        return output
    }
}
