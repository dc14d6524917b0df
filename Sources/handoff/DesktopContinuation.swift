import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop
import HandoffNotes

/// What `handoff continue` does with the kinds HandoffDesktop knows: a web page opens in the browser, a
/// clipboard goes to standard output, a terminal puts the user in the same repository and folder.
enum DesktopContinuation {
    /// Restores `continued` if it is a web page, clipboard or terminal activity; nil for any other type.
    static func restore(_ continued: ContinuedActivity, printOnly: Bool, shellFile: String?,
                        editorServer: String? = nil, context: CommandContext) async throws -> ExitCode? {
        let device = ActivitySummary.printable(continued.summary.device)
        if continued.content.type == MediaContinuation.type {
            return try await restoreMedia(continued, printOnly: printOnly, context: context)
        }
        switch ActivityKind(type: continued.content.type) {
        case .web?:
            let link = try WebLink(continued.content)
            if printOnly {
                context.terminal.out(link.text + "\n")
                return .success
            }
            guard link.isOpenable else {
                context.terminal.out(link.text + "\n")
                throw CLIError(.dataError, "web page from \(device) not opened: only http and https links are opened, "
                    + "this one is '\(link.scheme)'")
            }
            try await LinkOpener(environment: context.environment).open(link)
            context.terminal.note("web page from \(device) opened: \(link.text)")
            return .success
        case .clipboard?:
            context.terminal.outData(try ClipboardItem(continued.content).data)
            return .success
        case .terminal?:
            return try await restoreTerminal(try TerminalState(continued.content), from: device, printOnly: printOnly,
                                             shellFile: shellFile, context: context)
        case .editor?:
            return try await restoreEditor(try EditorPlace(continued.content), from: device, printOnly: printOnly,
                                           server: editorServer ?? context.environment["NVIM"], context: context)
        case .note?, nil:
            return nil
        }
    }

    /// Opens the same file at the same place in the local clone of the same repository: in the Neovim listening
    /// at `server` when there is one, else in the editor on a terminal, else prints `path:line:column`. A copy
    /// that differs from the source's buffer is opened as it is, and the user told; nothing is written.
    private static func restoreEditor(_ place: EditorPlace, from device: String, printOnly: Bool, server: String?,
                                      context: CommandContext) async throws -> ExitCode {
        let terminal = context.terminal
        let plan = EditorPlan(for: place, finder: CloneFinder(environment: context.environment))
        terminal.note("file in the editor from \(device): " + ActivitySummary.printable(place.title))
        switch plan.outcome {
        case .refused(let reason):
            throw CLIError(.dataError, "not opened: " + reason)
        case .noClone(let remote, let searched):
            terminal.out("git clone -- \(ShellWord.quoted(remote.url))\n")
            throw CLIError(.noInput, "no local clone of \(ActivitySummary.printable(remote.key)) in "
                + searched.map(ActivitySummary.printable).joined(separator: ", ")
                + " (HANDOFF_CLONES lists the folders to search, separated by ':'); to clone it, run the line above")
        case .missing(let path, let clone):
            throw CLIError(.noInput, "your clone \(ActivitySummary.printable(clone)) has no "
                + ActivitySummary.printable(path)
                + (place.branch.map { " (it is on branch '\(ActivitySummary.printable($0))' there)" } ?? ""))
        case .file(_, let clone, let others):
            terminal.note("your clone: \(ActivitySummary.printable(clone))"
                + (others.isEmpty ? "" : " (also: " + others.map(ActivitySummary.printable).joined(separator: ", ") + ")"))
        }
        guard let file = plan.file else { return .failure }
        let position = "\(file):\(place.line):\(place.column)"
        if plan.comparison == .differs {
            terminal.warning("your copy of \(ActivitySummary.printable(place.path)) differs from the buffer on "
                + device + (place.modified ? " (it has changes not saved there)" : "")
                + "; it is opened as it is here, and nothing was changed")
        }
        if printOnly {
            terminal.out(position + "\n")
            return .success
        }
        if let server, !server.isEmpty, let expression = plan.remoteExpression {
            guard let nvim = Tool.find("nvim", in: context.environment) else {
                throw CLIError(.desktopUnavailable, "nvim is not on PATH, so the Neovim at \(server) cannot be told")
            }
            let result = try await nvim.run(["--server", server, "--remote-expr", expression],
                                            environment: context.environment)
            guard result.status == 0 else {
                throw CLIError(.desktopUnavailable, "the Neovim at \(ActivitySummary.printable(server)) could not "
                    + "open it (exit \(result.status)): " + ActivitySummary.printable(result.errorText))
            }
            terminal.note("opened in the Neovim at \(ActivitySummary.printable(server)): " + position)
            return .success
        }
        let editor = EditorCommand(environment: context.environment).commandLine
        guard terminal.inputIsTerminal, let arguments = plan.editorArguments(editor: editor) else {
            terminal.out(position + "\n")
            return .success
        }
        // The editor's command line is the user's own ($VISUAL, $EDITOR), run by the shell; the file and the
        // position are arguments after it, never shell words.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$@\"", "sh"] + arguments
        process.environment = context.environment
        do {
            try process.run()
        } catch {
            throw CLIError(.editorFailed, "cannot start the editor '\(editor)': \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError(.editorFailed, "the editor '\(editor)' exited with status \(process.terminationStatus)")
        }
        return .success
    }

    private static func restoreTerminal(_ state: TerminalState, from device: String, printOnly: Bool,
                                        shellFile: String?, context: CommandContext) async throws -> ExitCode {
        let terminal = context.terminal
        let git = Tool.find("git", in: context.environment)
        var plan = TerminalPlan(for: state, finder: CloneFinder(environment: context.environment)) { root in
            currentBranch(of: root)
        }
        terminal.note("terminal from \(device): " + ActivitySummary.printable(state.title))
        for refusal in plan.refusals { terminal.warning(refusal) }
        switch plan.place {
        case .clone(let root, _, let others):
            terminal.note("your clone: \(ActivitySummary.printable(root))"
                + (others.isEmpty ? "" : " (also: " + others.map(ActivitySummary.printable).joined(separator: ", ") + ")"))
        case .noClone(let remote, let searched):
            terminal.note("no local clone of \(ActivitySummary.printable(remote.key)) in "
                + searched.map(ActivitySummary.printable).joined(separator: ", ")
                + " (HANDOFF_CLONES lists the folders to search, separated by ':'); to clone it:")
        case .directory, .nowhere: break
        }
        if printOnly {
            terminal.out(describe(plan))
            return .success
        }
        if let checkout = plan.checkoutCommand, let arguments = plan.checkoutArguments, let branch = plan.branch,
           case .clone(let root, _, _) = plan.place {
            if terminal.inputIsTerminal, let git {
                terminal.err("Check out branch '\(branch)' in \(ActivitySummary.printable(root))? [y/N] ")
                if (terminal.readLine() ?? "").lowercased().hasPrefix("y") {
                    // Arguments, never a shell line; `switch --`, so the name is never an option or a path.
                    let result = try await git.run(arguments, environment: context.environment)
                    if result.status == 0 {
                        terminal.note("checked out '\(branch)'")
                        plan.branch = nil
                    } else {
                        terminal.warning("git switch failed, nothing changed: "
                            + ActivitySummary.printable(result.errorText))
                    }
                }
            } else {
                terminal.note("to check out the branch: \(checkout)")
            }
        }
        if let shellFile {
            do {
                try plan.shellScript.write(toFile: shellFile, atomically: false, encoding: .utf8)
            } catch {
                throw CLIError(.ioError, "cannot write \(shellFile): \(error.localizedDescription)")
            }
            if let directory = plan.directory { terminal.note("now in \(ActivitySummary.printable(directory))") }
            if let command = plan.command {
                terminal.note("the last command is in your history (up arrow), not run: \(command)")
            }
        } else {
            terminal.out(describe(plan))
        }
        if let clone = plan.cloneCommand, shellFile != nil { terminal.out(clone + "\n") }
        return .success
    }

    /// The commands that put the user there, one per line, to read or paste: cd, the checkout, the last command
    /// as a comment (so pasting the block never runs it).
    static func describe(_ plan: TerminalPlan) -> String {
        var lines: [String] = []
        if let clone = plan.cloneCommand { lines.append(clone) }
        if let directory = plan.directory { lines.append("cd -- \(ShellWord.quoted(directory))") }
        if let checkout = plan.checkoutCommand { lines.append(checkout) }
        if let command = plan.command { lines.append("# last command, not run: \(command)") }
        return lines.map { $0 + "\n" }.joined()
    }

    /// The branch checked out in `root`, read from `.git/HEAD` (no program run); nil when detached or unreadable.
    static func currentBranch(of root: String) -> String? {
        guard let head = try? String(contentsOfFile: root + "/.git/HEAD", encoding: .utf8) else { return nil }
        let prefix = "ref: refs/heads/"
        let line = head.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
    }
}
