import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffNotes

/// `handoff continue`: fetch an activity from a nearby device and restore it here.
enum ContinueCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let from = Option<String>(
            "from", valueName: "device", help: "Only consider activities offered by this device (its name).")
        let type = Option<String>(
            "type", valueName: "type", help: "Only consider activities of this type, such as org.handoff.note.")
        let print = Flag(
            "print", help: "Write the note's text to standard output instead of saving it and opening the editor.")
        let json = Flag(
            "json", help: "Print the result as JSON: with --print the continued activity, else the restore outcome.")
        let pauseSource = Flag(
            "pause-source", help: "Ask the other device to pause what it plays (what is playing, org.handoff.media).")
        let shellFile = Option<String>(
            "shell-file", valueName: "file",
            help: "For a terminal: write the cd and history commands to this file, for the shell-init hook to source.")
        let server = Option<String>(
            "server", valueName: "address",
            help: "For a file in the editor: open it in the Neovim listening at this address (default: $NVIM, set "
                + "inside Neovim's terminal).")
    }

    static let configuration = CommandConfiguration(
        name: "continue",
        abstract: "Continue the freshest activity a nearby device offers (daemon).",
        discussion: """
            Takes the most recently updated available activity (after --from and --type), or on a terminal lets \
            you choose when there are several. It asks the other device to hand it over, shows a progress bar \
            on standard error for payloads over 4 KB, then restores it: a note is saved in the note store and \
            opened in your editor with the same title and content. A web page (org.handoff.web) opens with \
            xdg-open, http and https only (--print prints its URL); a clipboard is written to standard output; \
            a terminal (org.handoff.terminal) is found among your local clones by its remote URL, at the same \
            path, with an offer to check out its branch and its last command shown, never run (see \
            'handoff shell-init'). What is playing (org.handoff.media, offered by handoff-media) opens in \
            your MPRIS media player at the source's position (--print prints its URL and position); with \
            --pause-source the other device's player pauses once this one has it (handoff-media does it there). \
            A file in the editor (org.handoff.editor) is found like a terminal, by its \
            repository's remote, and opened at the same line and column: in the Neovim at --server (or $NVIM), \
            else in your editor on a terminal, else its path:line:column is printed. When your copy differs from \
            the other machine's buffer, you are told, and nothing is changed.

            A continued note never overwrites a local note that is open in an editor or whose text differs from \
            what an earlier continue wrote: both are kept, the continued one as a conflict copy named \
            'NAME (from DEVICE, YYYY-MM-DD HH.MM)', and the command says so and exits 5. Identical text is not \
            copied again.

            When the other device fails to hand the activity over, its error code and message are printed and \
            the command exits 4; with nothing to continue it exits 3.
            """,
        examples: [
            Example("handoff continue", "Continue the freshest activity and open the note in your editor."),
            Example("handoff continue --from laptop --print", "Print the note your laptop offers."),
        ])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await context.service()
        var available = try await service.availableActivities()
        if let device = invocation[\.from] { available = available.filter { $0.device == device } }
        if let type = invocation[\.type] { available = available.filter { $0.type == type } }
        guard !available.isEmpty else {
            var message = "no activity is available"
            if let device = invocation[\.from] { message += " from '\(device)'" }
            if let type = invocation[\.type] { message += " of type '\(type)'" }
            throw CLIError(.noActivity, message)
        }
        available.sort { $0.age < $1.age }
        let chosen = try choose(
            from: available, context: context, interactive: !invocation[\.json] && !invocation[\.print])
        let showsProgress = context.terminal.errorIsTerminal && chosen.size > 4096
        let bar = ProgressBar(terminal: context.terminal, enabled: showsProgress)
        let continued = try await service.continueActivity(chosen.id, pauseSource: invocation[\.pauseSource]) {
            bar.update($0)
        }
        bar.finish()
        if !invocation[\.json], let status = try await DesktopContinuation.restore(
            continued, printOnly: invocation[\.print], shellFile: invocation[\.shellFile],
            editorServer: invocation[\.server], context: context) {
            return status
        }

        if invocation[\.print] {
            if invocation[\.json] {
                context.terminal.outRaw(try JSONOutput.document(ContinuedActivityReport(continued)))
            } else {
                let text = continued.content.userInfo[ActivityContent.NoteKey.content]
                let userInfo = ContinuedActivityReport.userInfo(of: continued)
                context.terminal.outRaw(try text ?? JSONOutput.document(userInfo))
            }
            return .success
        }
        guard continued.content.type == ActivityContent.noteType else {
            throw CLIError(.failure, "activities of type '\(continued.content.type)' cannot be restored here; "
                + "use --print to see their content")
        }
        let outcome = try restore(continued, context: context)
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(RestoreReport(outcome, path: continued)))
        } else {
            context.terminal.note(outcome.summary)
            if context.terminal.inputIsTerminal {
                let editor = NoteEditor(command: EditorCommand(environment: context.environment))
                _ = try await editor.edit(outcome.restored.name, in: context.store()) { _ in }
            }
        }
        return outcome.isConflict ? .conflictKept : .success
    }

    static func restore(_ continued: ContinuedActivity, context: CommandContext) throws -> RestoreOutcome {
        let info = continued.content.userInfo
        let content = info[ActivityContent.NoteKey.content] ?? ""
        // The name comes from another device: make it valid rather than refuse the note.
        let name = NoteName.sanitized(info[ActivityContent.NoteKey.name] ?? continued.summary.title)
        let incoming = IncomingNote(name: name, content: content, device: continued.summary.device, receivedAt: context.date())
        return try NoteRestorer(store: context.store()).restore(incoming)
    }

    /// The freshest activity, or the user's pick on a terminal when there are several.
    static func choose(from activities: [ActivitySummary], context: CommandContext, interactive: Bool) throws
        -> ActivitySummary
    {
        guard interactive, activities.count > 1, context.terminal.inputIsTerminal, let first = activities.first else {
            return activities[0]
        }
        for (index, activity) in activities.enumerated() {
            context.terminal.err("  \(index + 1)) \(activity.title) — \(activity.type) from \(activity.device), "
                + "\(Int(activity.age)) s ago\n")
        }
        context.terminal.err("Continue which? [1] ")
        let line = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        if line.isEmpty { return first }
        guard let number = Int(line), activities.indices.contains(number - 1) else {
            throw CLIError(.usage, "'\(line)' is not a number between 1 and \(activities.count)")
        }
        return activities[number - 1]
    }
}
