/// Text from another device made safe for a shell and a terminal.
public enum ShellWord {
    /// `text` as one single-quoted shell word (`it's` → `'it'\''s'`): whatever it holds, a shell reads it as
    /// data, never as code.
    public static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Whether `text` holds a control character (an escape sequence could drive the terminal it is printed on,
    /// a newline could smuggle a second command into a line shown as one).
    public static func hasControlCharacters(_ text: String, allowingTab: Bool = false) -> Bool {
        text.unicodeScalars.contains {
            $0.properties.generalCategory == .control && !(allowingTab && $0 == "\t")
        }
    }

    /// Whether `name` is a branch name git accepts (git-check-ref-format(1) with `--branch`), so that it can be
    /// handed to `git checkout` as an argument and never read as an option.
    public static func isValidBranch(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("-"), !name.hasPrefix("/"), !name.hasSuffix("/"),
              !name.hasSuffix("."), !name.hasSuffix(".lock"), name != "@", !hasControlCharacters(name)
        else { return false }
        for bad in ["..", "//", "@{", "/."] where name.contains(bad) { return false }
        return !name.unicodeScalars.contains { " ~^:?*[\\\u{7F}".unicodeScalars.contains($0) }
    }
}
