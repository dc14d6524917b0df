import HandoffShared
import Testing

/// Issue 25 §9: whatever name a sender chooses, the one written into the inbox is never empty, hidden, an option,
/// or longer than the limit.
@Suite struct ShareNameTests {
    /// One `Character` of 501 bytes: `e` and 250 combining acute accents.
    static let hugeGrapheme = "e" + String(repeating: "\u{301}", count: 250)

    static func isSafe(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last else { return false }
        return !".- ".unicodeScalars.contains(first) && last != "." && last != " " && !name.contains("/")
            && name.utf8.count <= ShareName.maximumLength
    }

    @Test func theSanitiserRules() {
        #expect(ShareName.sanitise("report.pdf") == "report.pdf")
        #expect(ShareName.sanitise("Relevé de compte.pdf") == "Relevé de compte.pdf")
        #expect(ShareName.sanitise("../../etc/passwd") == "etc_passwd")
        #expect(ShareName.sanitise("/abs/path") == "abs_path")
        #expect(ShareName.sanitise("a\u{0}b") == "ab")
        #expect(ShareName.sanitise(".hidden") == "hidden")
        #expect(ShareName.sanitise("...") == "shared item")
        #expect(ShareName.sanitise("") == "shared item")
        #expect(ShareName.sanitise("-rf") == "rf")
        #expect(ShareName.sanitise("trailing. ") == "trailing")
        let long = ShareName.sanitise(String(repeating: "é", count: 300) + ".tar.gz")
        #expect(long.utf8.count <= ShareName.maximumLength)
        #expect(long.hasSuffix("é.gz"), "\(long)")
    }

    /// The clash suffix the CLI's take adds goes before the extension; a name without one, or whose only dot
    /// leads, takes it at the end.
    @Test(arguments: [("report.pdf", 2, "report (2).pdf"), ("README", 3, "README (3)"),
                      ("archive.tar.gz", 2, "archive.tar (2).gz"), (".profile", 2, ".profile (2)")])
    func theClashSuffix(name: String, number: Int, expected: String) {
        #expect(ShareName.variant(of: name, number: number) == expected)
    }

    @Test("one grapheme longer than the limit keeps what fits of it, never \"\"")
    func oneHugeGrapheme() {
        let name = ShareName.sanitise(Self.hugeGrapheme)
        #expect(!name.isEmpty)
        #expect(name.unicodeScalars.first == "e")
        #expect(Self.isSafe(name))
    }

    @Test("one grapheme longer than the limit and an extension is not a bare .bashrc")
    func notABareDotfile() {
        let name = ShareName.sanitise(Self.hugeGrapheme + ".bashrc")
        #expect(name != ".bashrc")
        #expect(name.hasSuffix(".bashrc") && name.unicodeScalars.first == "e")
        #expect(Self.isSafe(name))
    }

    @Test("a dot under a combining mark still counts as a leading dot", arguments: [
        ".\u{301}bashrc", "-\u{301}rf", " \u{301}x", "\u{301}", ".\u{301}", String(repeating: ".", count: 300),
        "." + hugeGrapheme, hugeGrapheme + "." + String(repeating: "x", count: 30), "a" + String(repeating: " .", count: 150),
    ])
    func neverHiddenOrEmpty(_ input: String) {
        let name = ShareName.sanitise(input)
        #expect(Self.isSafe(name), "\(Array(name.unicodeScalars.prefix(4)))")
    }
}
