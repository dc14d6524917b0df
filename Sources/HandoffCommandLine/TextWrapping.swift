import Foundation

/// Word wrapping for help text.
enum TextWrapping {
    /// Wraps a paragraph to `width` columns, indenting every line by `indent` spaces.
    /// Words longer than a line stay whole.
    static func wrap(_ text: String, width: Int, indent: Int = 0) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if line.isEmpty {
                line = String(word)
            } else if indent + line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(pad + line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(pad + line) }
        return lines
    }

    /// Splits text into paragraphs at blank lines.
    static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }
}
