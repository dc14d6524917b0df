/// Text that another party chose (a peer's device name, an activity's title, a file or note name, a URL, another
/// user's inbox item), made safe for the two places it is shown: a terminal and the daemon's log.
///
/// This is the one escaping function of both sinks (Docs/protocol.md, "The gate"): the `handoff` CLI's
/// `Terminal` passes everything it writes as text through it, and `DaemonLogger` every message. A character that
/// could drive a terminal or split a line is shown visibly instead, as `\u{1B}`: the C0 controls (ESC, CR, LF, BS
/// and the rest), DEL, the C1 controls (U+0080–U+009F, CSI among them), and the bidirectional controls that reorder
/// what is shown (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), with the line and paragraph separators.
public enum TerminalText {
    /// `text` with every character `isUnsafe` shown as `\u{…}`, except those in `kept` (a terminal's text keeps
    /// its own `\n` and `\t`; a log line keeps none).
    public static func escaped(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && !kept.contains($0) }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) && !kept.contains(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether `scalar` is a control character (C0, DEL, C1), a bidirectional control, or a line or paragraph
    /// separator.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
