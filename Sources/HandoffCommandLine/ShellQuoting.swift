import Foundation

/// Quoting helpers for generated shell scripts.
enum ShellQuoting {
    /// A single-quoted shell word: `it's` becomes `'it'\''s'`.
    static func single(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A double-quoted shell word with `\`, `"`, `$` and backquote escaped.
    static func double(_ text: String) -> String {
        var out = "\""
        for character in text {
            if "\\\"$`".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// A shell function-name fragment: letters, digits and underscores only.
    static func identifier(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
