import Foundation
import HandoffShared
@testable import HandoffKit
import Testing

@Suite struct PlistValueTests {
    let sample: [String: PlistValue] = [
        "title": "Groceries",
        "count": 42,
        "negative": -7,
        "big": .integer(Int64.max),
        "ratio": 0.25,
        "done": true,
        "off": false,
        "when": .date(Date(timeIntervalSince1970: 1_700_000_000)),
        "blob": .data(Data([0, 1, 2, 255])),
        "list": [1, "two", 3.5, false],
        "nested": ["a": ["b": ["c": "deep"]]],
        "link": .url(URL(string: "https://example.org/note?id=7")!),
        "empty": [:],
    ]

    @Test func binaryRoundTripKeepsEveryType() throws {
        let data = try PlistValue.binaryPropertyList(from: sample)
        #expect(Array(data.prefix(8)) == Array("bplist00".utf8))
        #expect(try PlistValue.dictionary(fromPropertyList: data) == sample)
    }

    @Test func pythonPlistlibReadsOurPayloadAndWritesOneWeRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ours = dir.appendingPathComponent("ours.plist")
        let theirs = dir.appendingPathComponent("theirs.plist")
        try PlistValue.binaryPropertyList(from: sample).write(to: ours)
        let script = """
        import plistlib, sys, datetime
        d = plistlib.load(open(sys.argv[1], 'rb'))
        assert d['title'] == 'Groceries' and d['count'] == 42 and d['done'] is True and d['off'] is False, d
        assert d['blob'] == bytes([0, 1, 2, 255]) and d['list'] == [1, 'two', 3.5, False], d
        assert d['nested']['a']['b']['c'] == 'deep' and d['link'] == {'$handoff.url': 'https://example.org/note?id=7'}
        assert d['when'] == datetime.datetime(2023, 11, 14, 22, 13, 20), d['when']
        d['added'] = {'py': [True, 2**40, b'x', 'é']}
        plistlib.dump(d, open(sys.argv[2], 'wb'), fmt=plistlib.FMT_BINARY)
        print('ok')
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, ours.path, theirs.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "python3 plistlib failed: \(output)")
        var expected = sample
        expected["added"] = ["py": [true, .integer(1 << 40), .data(Data("x".utf8)), "é"]]
        #expect(try PlistValue.dictionary(fromPropertyList: Data(contentsOf: theirs)) == expected)
    }

    @Test func garbageIsACorruptPayloadError() {
        for bytes in [Data(), Data("bplist00".utf8), Data([0xFF, 0x00, 0x13]), Data("<plist><array/></plist>".utf8)] {
            if let error = #expect(throws: (any Error).self, performing: {
                try PlistValue.dictionary(fromPropertyList: bytes)
            }) {
                #expect((error as? HandoffError)?.code == .corruptPayload)
            }
        }
    }

    @Test func setsAndNonStringKeysAreRefusedBeforeFoundationSeesThem() throws {
        // Regression: a mutated payload holding a set once crashed Foundation's bridging (DecoderPropertyTests).
        var bytes = [UInt8](try PlistValue.binaryPropertyList(from: ["k": [1, 2]]))
        let array = try #require(bytes.firstIndex(of: 0xA2))
        bytes[array] = 0xC2
        if let error = #expect(throws: (any Error).self, performing: {
            try PlistValue.dictionary(fromPropertyList: Data(bytes))
        }) {
            #expect((error as? HandoffError)?.code == .corruptPayload)
            #expect(ErrorChain.text(error).contains("unsupported object type 0xc2"), "\(error)")
        }
        var keyed = [UInt8](try PlistValue.binaryPropertyList(from: ["k": 1]))
        let key = try #require(keyed.firstIndex(of: 0x51))   // ASCII string of length 1: "k"
        keyed[key] = 0x10                                       // now a one-byte integer
        if let error = #expect(throws: (any Error).self, performing: {
            try PlistValue.dictionary(fromPropertyList: Data(keyed))
        }) {
            #expect(ErrorChain.text(error).contains("key is not a string"), "\(error)")
        }
    }

    @Test func excessiveNestingIsRefused() throws {
        var value: PlistValue = "leaf"
        for _ in 0..<100 { value = .array([value]) }
        #expect(throws: (any Error).self, "the writer must not write what the reader refuses") {
            try PlistValue.binaryPropertyList(from: ["deep": value])
        }
        let data = try BinaryPropertyList.encode(.dictionary(["deep": value]), limits: .init(maximumDepth: 200))
        if let error = #expect(throws: (any Error).self, performing: {
            try PlistValue.dictionary(fromPropertyList: Data(data))
        }) {
            #expect((error as? HandoffError)?.code == .corruptPayload)
            #expect(ErrorChain.text(error).contains("deeper than 64"), "\(error)")
        }
    }

    @Test func payloadCarriesEveryActivityProperty() throws {
        var snapshot = ActivitySnapshot(activityType: "org.handoff.note")
        snapshot.title = "Note"
        snapshot.userInfo = sample
        snapshot.requiredUserInfoKeys = ["title"]
        snapshot.isEligibleForHandoff = true
        snapshot.webpageURL = URL(string: "https://example.org/n/7")
        snapshot.expirationDate = Date(timeIntervalSince1970: 2_000_000_000)
        snapshot.keywords = ["list", "food"]
        snapshot.persistentIdentifier = "note-7"
        snapshot.targetContentIdentifier = "window-1"
        #expect(try ActivitySnapshot(payload: snapshot.encodedPayload()) == snapshot)
    }
}
