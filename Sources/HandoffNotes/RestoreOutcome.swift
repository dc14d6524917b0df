/// What restoring a continued note did, for the CLI to report.
public enum RestoreOutcome: Sendable, Equatable {
    /// Why an incoming note was written as a conflict copy instead of over the local note.
    public enum ConflictReason: String, Sendable, Equatable, Codable {
        /// The local note is open in an editor, which may hold unsaved changes.
        case openInEditor = "open-in-editor"
        /// The local note's text differs from the incoming one and was not written by an earlier restore
        /// (it was written or changed here).
        case localChanges = "local-changes"
    }

    /// There was no local note of that name; it was created.
    case created(NoteMetadata)
    /// The local note already had exactly this text; nothing was written.
    case unchanged(NoteMetadata)
    /// The local note was an untouched copy from an earlier restore (its text is exactly what that restore
    /// wrote) and was not open in an editor, so it was replaced with the newer text; nothing local is lost.
    case updated(NoteMetadata)
    /// The local note was kept as it is and the incoming text was written beside it as a conflict copy
    /// (or an identical conflict copy already existed and was reused).
    case keptBoth(local: NoteMetadata, copy: NoteMetadata, reason: ConflictReason)

    /// The note that now holds the incoming text: the one to open or print.
    public var restored: NoteMetadata {
        switch self {
        case .created(let note), .unchanged(let note), .updated(let note): return note
        case .keptBoth(_, let copy, _): return copy
        }
    }

    /// Whether a conflict copy holds the incoming text.
    public var isConflict: Bool {
        if case .keptBoth = self { return true }
        return false
    }

    /// One sentence for the user.
    public var summary: String {
        switch self {
        case .created(let note):
            return "restored note '\(note.name)' (\(note.path))"
        case .unchanged(let note):
            return "note '\(note.name)' already has this content; nothing written"
        case .updated(let note):
            return "updated note '\(note.name)' (it held an earlier continued version, unchanged here)"
        case .keptBoth(let local, let copy, let reason):
            let why = reason == .openInEditor ? "it is open in an editor" : "it has different local content"
            return "kept your note '\(local.name)' because \(why); the continued note is saved as '\(copy.name)' "
                + "(\(copy.path))"
        }
    }
}
