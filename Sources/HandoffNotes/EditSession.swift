import Foundation

/// The result of editing a note in an external editor.
public struct EditSession: Sendable, Equatable {
    /// The note as the editor left it; nil when it does not exist (the user quit a new note without saving).
    public var note: Note?
    /// How many distinct saves were noticed while the editor ran (saves of unchanged text are not counted).
    public var saves: Int
    /// The editor's exit status (a non-zero status does not discard what was saved).
    public var editorStatus: Int32

    /// Creates a result.
    public init(note: Note?, saves: Int, editorStatus: Int32) {
        self.note = note
        self.saves = saves
        self.editorStatus = editorStatus
    }
}
