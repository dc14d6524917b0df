import HandoffCommandLine
import HandoffNotes

/// `handoff note show NAME`: a note's text.
enum NoteShowCommand: HandoffCommand {
    static let name = Argument<String>("name", help: "The note to print.", completion: NoteCommand.nameCompletion)

    static let spec = Command(
        name: "show",
        abstract: "Print a note's text to standard output, exactly as stored.",
        discussion: "Works without the daemon. Exits 66 when there is no such note.",
        parameters: [name])

    static func run(_ invocation: Invocation, context: CommandContext) async throws -> ExitCode {
        let note = try context.store().read(NoteName(invocation[name] ?? ""))
        context.terminal.out(note.content)
        return .success
    }
}
