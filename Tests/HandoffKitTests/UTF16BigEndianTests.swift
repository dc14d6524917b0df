@testable import HandoffKit
import Testing

/// The string transcoding of binary property lists, which takes runs of ASCII four code units at a time: every
/// mix of run lengths and scalar widths must come out as the standard library's own UTF-16, and back.
@Suite struct UTF16BigEndianTests {
    /// Scalars of each UTF-8 width, a NUL and the edges of the surrogate range among them.
    static let wide: [Unicode.Scalar] = ["é", "œ", "\u{7FF}", "\u{800}", "—", "☕", "\u{D7FF}", "\u{E000}", "\u{FFFF}",
                                         "🙂", "\u{10000}", "\u{10FFFF}", "\u{0}", "\u{7F}"]

    /// Strings of ASCII runs 0-11 long between wide scalars, from a fixed generator so a failure repeats, and two long
    /// ones made of them.
    static func samples() -> [String] {
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        let short = (0..<400).map { _ in
            var text = String.UnicodeScalarView()
            for _ in 0..<next(12) {
                for _ in 0..<next(12) { text.append(Unicode.Scalar(UInt8(0x20 + next(0x5F)))) }
                text.append(wide[next(wide.count)])
            }
            for _ in 0..<next(9) { text.append("a") }
            return String(text)
        }
        // Long ones too: the UTF-8 measure counts in per-byte lanes that it flushes every 255 words.
        return short + [short.joined(), short.prefix(100).joined(separator: String(repeating: "x", count: 3000))]
    }

    @Test func encodingGivesTheStandardLibrarysUTF16AndDecodingGivesTheStringBack() throws {
        for text in Self.samples() {
            var copy = text
            let (isASCII, units) = copy.withUTF8 { UTF16BigEndian.measure($0) }
            #expect(isASCII == text.unicodeScalars.allSatisfy(\.isASCII), "\(text.debugDescription)")
            #expect(units == text.utf16.count, "\(text.debugDescription)")
            #expect(copy.withUTF8 { UTF16BigEndian.isASCII($0) } == isASCII, "\(text.debugDescription)")
            var encoded = [UInt8](repeating: 0, count: 2 * units)
            let written = copy.withUTF8 { utf8 in
                encoded.withUnsafeMutableBytes { UTF16BigEndian.encode(utf8, into: $0) }
            }
            #expect(written == 2 * units, "\(text.debugDescription)")
            // Into a buffer with room to spare (as the writer gives it), the same bytes and count.
            var roomy = [UInt8](repeating: 0xEE, count: 2 * copy.utf8.count + 16)
            let writtenRoomy = copy.withUTF8 { utf8 in
                roomy.withUnsafeMutableBytes { UTF16BigEndian.encode(utf8, into: $0) }
            }
            #expect(writtenRoomy == 2 * units && Array(roomy.prefix(2 * units)) == encoded,
                    "\(text.debugDescription)")
            let expected = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            #expect(encoded == expected, "\(text.debugDescription)")
            let decoded = expected.withUnsafeBufferPointer { UTF16BigEndian.decode($0) }
            #expect(decoded == text, "\(text.debugDescription)")
        }
    }

    /// The decoder copies its UTF-8 into the string unchecked: what comes out must be a string like any other,
    /// equal and hashing equal to the standard library's own, at every length around the four-unit steps, for
    /// empty input, and for ASCII stored as UTF-16 (which the string is not told is ASCII).
    @Test func decodedStringsAreOrdinaryStrings() {
        var texts = ["", "a", "é", "🙂", "abcd", "abcdé", String(repeating: "x", count: 100)]
        for length in 0..<18 {
            for wide in ["é", "☕", "🙂", "a"] {
                texts.append(String(repeating: "ab", count: length / 2) + wide + String(repeating: "c", count: length))
            }
        }
        for text in texts {
            let bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let decoded = bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0) }
            #expect(decoded == text, "\(text.debugDescription)")
            #expect(decoded.map { Array($0.utf8) } == Array(text.utf8), "\(text.debugDescription)")
            #expect(decoded?.hashValue == text.hashValue, "\(text.debugDescription)")
            #expect(decoded?.count == text.count, "\(text.debugDescription)")
            #expect(decoded.map { Set([text]).contains($0) } == true, "\(text.debugDescription)")
        }
    }

    @Test func anUnpairedSurrogateAfterAnASCIIRunIsRefused() {
        for prefix in 0..<9 {
            let ascii: [UInt8] = (0..<2 * prefix).map { $0 % 2 == 1 ? 0x61 : 0 }
            for bad: [UInt8] in [[0xD8, 0x00], [0xDC, 0x00], [0xD8, 0x00, 0x00, 0x61]] {
                let bytes = ascii + bad + [0, 0x62, 0, 0x63, 0, 0x64, 0, 0x65]
                #expect(bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0) } == nil, "\(bytes)")
            }
        }
    }

    /// The writer sets a UTF-16 string's count after transcoding when both its bounds (a unit per UTF-8 byte at
    /// most, per three at least) take the same header, and measures first otherwise: counts on both sides of each
    /// header width, in one-, two-, three- and four-byte scalars, must decode back whole.
    @Test func stringsOfEveryHeaderWidthSurviveAPropertyListRoundTrip() throws {
        let counts = [1, 4, 5, 7, 8, 13, 14, 15, 16, 84, 85, 86, 127, 128, 255, 256, 257, 21_845, 21_846, 32_767,
                      32_768, 65_535, 65_536]
        for count in counts {
            for wide in ["é", "☕", "🙂", "aé", "ab☕"] {
                let text = "x" + String(repeating: wide, count: count)
                let bytes = try BinaryPropertyList.encode(.string(text))
                #expect(try BinaryPropertyList.decode(bytes) == .string(text), "\(count) × \(wide)")
            }
        }
    }
}
