/// The activity types handoff itself offers and continues, and the word a user reads for each
/// (`clipboard from laptop` in `handoff watch` and in desktop notifications).
public enum ActivityKind: String, Sendable, CaseIterable {
    /// A note being edited (``ActivityContent/noteType``).
    case note = "org.handoff.note"
    /// A copy on the other machine's clipboard: text or a PNG image; expires after two minutes.
    case clipboard = "org.handoff.clipboard"
    /// A web page, with the activity's `webpageURL` set (Apple's `NSUserActivityTypeBrowsingWeb`).
    case web = "org.handoff.web"
    /// A shell's place: working directory, git repository and branch, last command line.
    case terminal = "org.handoff.terminal"
    /// A file open in an editor: its repository's remote, its path there, the cursor's line and column.
    case editor = "org.handoff.editor"

    /// The kind of `type`, nil for a type handoff does not know.
    public init?(type: String) {
        self.init(rawValue: type)
    }

    /// The activity type.
    public var type: String { rawValue }

    /// What a user calls it: `note`, `clipboard`, `web page`, `terminal`, `file in the editor`.
    public var noun: String {
        switch self {
        case .note: "note"
        case .clipboard: "clipboard"
        case .web: "web page"
        case .terminal: "terminal"
        case .editor: "file in the editor"
        }
    }

    /// The command that takes it on this machine.
    public var command: String {
        switch self {
        case .clipboard: "handoff paste"
        case .note, .web, .terminal, .editor: "handoff continue"
        }
    }
}

extension ActivitySummary {
    /// `clipboard from laptop`, or `web page from laptop: Title`, for the kinds handoff knows; nil for the others.
    public var kindLine: String? {
        guard let kind = ActivityKind(type: type), kind != .note else { return nil }
        let line = "\(kind.noun) from \(Self.printable(device))"
        return title.isEmpty ? line : "\(line): \(Self.printable(title))"
    }
}

extension ActivitySummary {
    /// `text` on one line, with control and bidirectional characters (which another device could use to drive
    /// this terminal or forge a line) shown as `\u{1B}`: ``TerminalText/escaped(_:keeping:)``.
    public static func printable(_ text: String) -> String {
        TerminalText.escaped(text)
    }
}
