import HandoffCommandLine

/// `handoff note`: the group of note subcommands.
enum NoteCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "note",
        abstract: "Edit, list and show notes; an edited note is offered to your other devices.",
        discussion: """
            Notes are UTF-8 text files in $XDG_DATA_HOME/handoff/notes (default ~/.local/share/handoff/notes), \
            one NAME.md per note. The first line of a note is its title (leading '#' marks and spaces are \
            dropped; an empty first line makes the name the title).
            """)

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [NoteEditCommand.self, NoteListCommand.self, NoteShowCommand.self]
    }

    /// Completion for note-name arguments: the names of existing notes.
    static let nameCompletion = CompletionKind.shellCommand("handoff note list --names")
}
