import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// What `handoff continue` does with the kinds HandoffDesktop knows: a web page opens in the browser, a
/// clipboard goes to standard output, a terminal puts the user in the same repository and folder.
enum DesktopContinuation {
    /// Restores `continued` if it is a web page, clipboard or terminal activity; nil for any other type.
    static func restore(_ continued: ContinuedActivity, printOnly: Bool, shellFile: String?,
                        context: CommandContext) async throws -> ExitCode? {
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
        case .note?, nil:
            return nil
        }
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
