import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffNotes
import HandoffShared

/// `handoff note edit [NAME]`: edit a note and offer it to nearby devices on every save.
enum NoteEditCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let name = Argument<String>(
            "name", help: "The note to edit; created if missing.", optional: true,
            defaultDescription: "a new note named 'Note YYYY-MM-DD HH.MM'", completion: NoteCommand.nameCompletion)
        let stdin = Flag(
            "stdin",
            help: "Read the whole note from standard input instead of opening an editor, save it, offer it once.")
        let grace = Option<Int>(
            "grace", valueName: "seconds",
            help: "How long the note stays available to other devices after the editor closes.", defaultValue: 300)
    }

    static let configuration = CommandConfiguration(
        name: "edit",
        abstract: "Edit a note in $VISUAL or $EDITOR and offer it to your nearby devices (daemon).",
        discussion: """
            Opens the note in $VISUAL, else $EDITOR, else vi. Every save that changes the text makes the note \
            your current activity (type org.handoff.note, with its title and content), so a nearby device can \
            continue it. After the editor closes the note stays available for --grace seconds, so you can walk \
            to the other machine; the daemon keeps that timer, so this command returns at once.

            The note is always saved locally, even when the handoff daemon is not reachable; the command then \
            says so and exits 69.
            """,
        examples: [
            Example("handoff note edit groceries", "Edit groceries.md and offer it while you edit."),
            Example("echo 'Call Sam' | handoff note edit todo --stdin", "Save and offer a note from a script."),
        ])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let graceSeconds = invocation[\.grace] ?? 300
        guard graceSeconds >= 0 else {
            throw CLIError(.usage, "invalid value '\(graceSeconds)' for '--grace': expected 0 or more seconds")
        }
        let noteName = try NoteName(invocation[\.name] ?? defaultName(at: context.date()))
        let store = try context.store()
        var unreachable: ServiceError?
        let offer: NoteOffer?
        do {
            offer = NoteOffer(service: try await context.service())
        } catch let error as ServiceError where error.code == .unreachable {
            unreachable = error
            offer = nil
        }
        var status = ExitCode.success
        var saved = true
        if invocation[\.stdin] {
            let data = try context.terminal.readInput()
            guard let text = Note.text(utf8: data) else {
                throw CLIError(.dataError, "standard input is not UTF-8 text; note '\(noteName)' was not changed")
            }
            let metadata = try store.write(text, to: noteName)
            context.terminal.note("saved note '\(noteName)' (\(metadata.path))")
            await offer?.offer(try store.read(noteName))
        } else {
            if let offer, let existing = try? store.read(noteName) { await offer.offer(existing) }
            let editor = NoteEditor(command: EditorCommand(environment: context.environment))
            let session = try await editor.edit(noteName, in: store) { note in await offer?.offer(note) }
            if let note = session.note {
                context.terminal.note("saved note '\(noteName)' (\(note.metadata.path)), \(session.saves) save(s)")
            } else {
                context.terminal.note("note '\(noteName)' was not saved")
                saved = false
            }
            if session.editorStatus != 0 {
                context.terminal.warning("the editor exited with status \(session.editorStatus)")
                status = .editorFailed
            }
        }
        if let unreachable {
            let consequence = saved ? "; the note is saved locally but not offered" : ""
            throw CLIError(.daemonUnreachable, unreachable.message + consequence)
        }
        if let offer {
            if let error = await offer.firstError {
                throw CLIError(Handoff.describe(error).0, "the note is saved but could not be offered: \(ErrorChain.text(error))")
            }
            if await offer.isOffered {
                try await offer.resign(after: .seconds(graceSeconds))
                context.terminal.note("offered to your nearby devices for \(graceSeconds) more seconds")
            }
        }
        return status
    }

    /// "Note 2026-11-29 21.04": the name of a new note when none is given.
    static func defaultName(at date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "Note %04d-%02d-%02d %02d.%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0)
    }
}
