import Foundation
import HandoffCommandLine
import HandoffNotes

/// `handoff note list`: the notes in the store.
enum NoteListCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag(
            "json", help: "Print a JSON array of notes (name, title, path, modified, sizeBytes, sha256).")
        let names = Flag("names", help: "Print only the names, one per line (used by shell completion).")
    }

    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List notes, newest first in the table, by name in --json and --names.",
        discussion: "Works without the daemon. The table shows each note's name, modification time and title.",
        examples: [Example("handoff note list --json", "List notes as JSON, for scripts.")])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let store = try context.store()
        let notes = try store.list()
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(notes))
        } else if invocation[\.names] {
            context.terminal.out(notes.map { $0.name.rawValue + "\n" }.joined())
        } else if notes.isEmpty {
            context.terminal.note("no notes yet in \(store.directory); create one with 'handoff note edit NAME'")
        } else {
            context.terminal.out(table(notes.sorted { $0.modified > $1.modified }))
        }
        return .success
    }

    static func table(_ notes: [NoteMetadata]) -> String {
        let width = min(40, notes.map(\.name.rawValue.count).max() ?? 0)
        return notes.map { note in
            let name = note.name.rawValue.padding(toLength: max(width, note.name.rawValue.count), withPad: " ",
                                                  startingAt: 0)
            return name + "  " + timestamp(note.modified) + "  " + note.title + "\n"
        }.joined()
    }

    static func timestamp(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0)
    }
}
