import HandoffNotes
import Testing

@Suite struct NoteNameTests {
    @Test(arguments: ["groceries", "Trip to Oslo", "día 2", "a.b", "notes-2026"])
    func acceptsOrdinaryNames(_ text: String) throws {
        #expect(try NoteName(text).rawValue == text)
    }

    @Test func dropsAMarkdownExtension() throws {
        #expect(try NoteName("groceries.md").rawValue == "groceries")
        #expect(try NoteName("groceries").fileName == "groceries.md")
    }

    @Test(arguments: ["", "../secret", "a/b", "/etc/passwd", ".hidden", "..", ".", "tab\there", "nul\u{0}x",
                      " padded", "padded ", String(repeating: "x", count: 201)])
    func refusesNamesThatCouldEscapeOrHide(_ text: String) {
        #expect(throws: NoteError.self) { try NoteName(text) }
        do {
            _ = try NoteName(text)
        } catch {
            #expect(error.code == .invalidName)
            #expect(error.message.hasPrefix("invalid note name"))
        }
    }
}
