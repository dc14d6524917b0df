/// The one home of an inbox item's name (Docs/protocol.md §8): the receiving side (HandoffKit's `ShareInbox`)
/// turns the name a sender chose into one that is safe to create in a directory, and the CLI's `InboxTaker`
/// (HandoffClient) gives it a clash suffix when taking it out.
///
/// A safe name is a single path component, never `.` or `..`, has no NUL or other control or format characters
/// (bidirectional overrides included), is not hidden (no leading dot), not overlong, never empty. Everything else
/// (spaces, Unicode letters) is kept.
///
///     ShareName.sanitise("../../etc/passwd") == "etc_passwd"
///     ShareName.sanitise("/abs/path")        == "abs_path"
///     ShareName.sanitise("a\u{0}b")          == "ab"
///     ShareName.sanitise(".hidden")          == "hidden"
package enum ShareName {
    /// Longest sanitised name in UTF-8 bytes. NAME_MAX is 255; the rest leaves room for a clash suffix
    /// (` (99)`) and a temporary name beside it.
    package static let maximumLength = 200

    /// The name used when nothing usable is left.
    package static let fallback = "shared item"

    /// The safe form of `name`.
    package static func sanitise(_ name: String) -> String {
        // Separators split the name; the empty, `.` and `..` components are dropped, the rest joined with `_`.
        let components = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init)
            .map(clean).filter { !$0.isEmpty && $0 != "." && $0 != ".." }
        // Trimmed before it is cut (so the cut keeps as much as it can) and after (a cut can end on a dot or
        // leave only an extension such as `.bashrc`).
        return finished(shorten(finished(components.joined(separator: "_"))))
    }

    /// `name` not hidden, not an option, with no leading or trailing dots or spaces (Windows and shells trip on
    /// those too), or `fallback` when nothing is left. Scalar by scalar: a dot with a combining mark on it is one
    /// `Character` but still starts a hidden name.
    private static func finished(_ name: String) -> String {
        var scalars = Substring(name).unicodeScalars
        while let first = scalars.first, first == "." || first == " " || first == "-" { scalars.removeFirst() }
        while let last = scalars.last, last == "." || last == " " { scalars.removeLast() }
        return scalars.isEmpty ? fallback : String(scalars)
    }

    /// `name` with ` (n)` inserted before its extension: `report (2).pdf`.
    package static func variant(of name: String, number: Int) -> String {
        let (stem, ext) = split(name)
        return "\(stem) (\(number))\(ext)"
    }

    /// Drops control (Cc) and format (Cf) characters: NUL, newlines, escapes, bidi overrides, zero-width joiners.
    private static func clean(_ component: String) -> String {
        String(String.UnicodeScalarView(component.unicodeScalars.filter { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
            default: true
            }
        }))
    }

    /// Cuts `name` to `maximumLength` UTF-8 bytes on a character boundary, keeping a short extension.
    private static func shorten(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        var (stem, ext) = split(name)
        if ext.utf8.count > 16 { ext = "" ; stem = name }
        var cut = ""
        for character in stem {
            if cut.utf8.count + character.utf8.count + ext.utf8.count > maximumLength { break }
            cut.append(character)
        }
        if cut.isEmpty {
            // The first character alone is over the limit (a base with hundreds of combining marks): keep as many
            // of its scalars as fit, rather than nothing, or the bare extension.
            var scalars = String.UnicodeScalarView()
            var length = ext.utf8.count
            for scalar in stem.unicodeScalars {
                length += scalar.utf8.count
                if length > maximumLength { break }
                scalars.append(scalar)
            }
            cut = String(scalars)
        }
        return cut + ext
    }

    /// `("report", ".pdf")`; a name without a dot (or with only a leading one) has no extension.
    private static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
