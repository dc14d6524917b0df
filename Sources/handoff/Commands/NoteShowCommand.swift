import HandoffCommandLine
import HandoffNotes

/// `handoff note show NAME`: a note's text.
enum NoteShowCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let name = Argument<String>("name", help: "The note to print.", completion: NoteCommand.nameCompletion)
    }

    static let configuration = CommandConfiguration(
        name: "show",
        abstract: "Print a note's text to standard output, exactly as stored.",
        discussion: "Works without the daemon. Exits 66 when there is no such note.")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let note = try context.store().read(NoteName(invocation[\.name] ?? ""))
        context.terminal.outRaw(note.content)
        return .success
    }
}
