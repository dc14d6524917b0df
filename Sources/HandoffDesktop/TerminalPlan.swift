import Foundation
import HandoffClient

/// How to put the user where the other machine's shell was: which folder, which branch to offer, which command
/// to put in the history. Nothing is run by building a plan; every value from the other device is checked
/// before it can reach a shell, and reaches it only single-quoted.
public struct TerminalPlan: Sendable, Equatable {
    /// Where the plan leads.
    public enum Place: Sendable, Equatable {
        /// A local clone of the same repository: `directory` is the same path inside it (or its top, when that path
        /// does not exist here).
        case clone(root: String, directory: String, others: [String])
        /// No clone of the repository was found: the command that makes one.
        case noClone(remote: GitRemote, searched: [String])
        /// Not a repository: the same directory, which exists here.
        case directory(String)
        /// Not a repository, and that directory does not exist here.
        case nowhere
    }

    /// Where to go.
    public var place: Place
    /// The branch to offer to check out, when it is valid and the clone is on another branch.
    public var branch: String?
    /// The last command, when it can be shown and put in the history safely.
    public var command: String?
    /// What was refused, one line each, for the user.
    public var refusals: [String]

    /// Plans for `state` with the clones `finder` finds; `currentBranch` answers which branch a clone has out.
    public init(for state: TerminalState, finder: CloneFinder, currentBranch: (String) -> String? = { _ in nil }) {
        var refusals: [String] = []
        command = nil
        if let line = state.lastCommand {
            if ShellWord.hasControlCharacters(line, allowingTab: true) {
                refusals.append("the last command holds control characters; it is not offered: "
                    + ActivitySummary.printable(line))
            } else {
                command = line
            }
        }
        branch = nil
        guard let repository = state.repository else {
            let directory = state.directory
            if !ShellWord.hasControlCharacters(directory), directory.hasPrefix("/"),
               FileManager.default.fileExists(atPath: directory) {
                place = .directory(directory)
            } else {
                place = .nowhere
            }
            self.refusals = refusals
            return
        }
        let clones = finder.clones(of: repository.remote)
        guard let clone = clones.first else {
            place = .noClone(remote: repository.remote, searched: finder.roots)
            self.refusals = refusals
            return
        }
        var directory = clone.path
        let parts = repository.path.split(separator: "/")
        if parts.contains(where: { $0 == ".." || $0 == "." }) || ShellWord.hasControlCharacters(repository.path) {
            refusals.append("the path inside the repository is not a plain relative path; going to the top: "
                + ActivitySummary.printable(repository.path))
        } else if !parts.isEmpty {
            let candidate = clone.path + "/" + parts.joined(separator: "/")
            if FileManager.default.fileExists(atPath: candidate) { directory = candidate }
        }
        place = .clone(root: clone.path, directory: directory, others: clones.dropFirst().map(\.path))
        if let wanted = repository.branch {
            if !ShellWord.isValidBranch(wanted) {
                refusals.append("the branch name is not one git accepts; it is not offered: "
                    + ActivitySummary.printable(wanted))
            } else if currentBranch(clone.path) != wanted {
                branch = wanted
            }
        }
        self.refusals = refusals
    }

    /// The folder to change to, if any.
    public var directory: String? {
        switch place {
        case .clone(_, let directory, _): directory
        case .directory(let directory): directory
        case .noClone, .nowhere: nil
        }
    }

    /// `git -C '/root' switch -- 'branch'`, to show; run only when the user says yes, as `checkoutArguments`.
    public var checkoutCommand: String? {
        guard case .clone(let root, _, _) = place, let branch else { return nil }
        return "git -C \(ShellWord.quoted(root)) switch -- \(ShellWord.quoted(branch))"
    }

    /// git's arguments that check out `branch` in the clone: `-C root switch -- branch`. `switch`, never
    /// `checkout`: given a name that is not a branch here but names a path (`docs`, `src`), `git checkout NAME`
    /// restores that path from the index, silently throwing away the user's edits, and exits 0. `git switch` only
    /// ever takes a branch (a remote's branch of that name becomes a new local one that tracks it), and refuses
    /// anything else, or local changes it would overwrite, without touching the working tree.
    public var checkoutArguments: [String]? {
        guard case .clone(let root, _, _) = place, let branch else { return nil }
        return ["-C", root, "switch", "--", branch]
    }

    /// `git clone -- 'URL' && cd 'name'`, when there is no clone.
    public var cloneCommand: String? {
        guard case .noClone(let remote, _) = place else { return nil }
        return "git clone -- \(ShellWord.quoted(remote.url)) && cd \(ShellWord.quoted(remote.name))"
    }

    /// What a shell sources to be there: `cd` to the folder and the last command put in the history (bash
    /// `history -s`, zsh `print -rs`: raw, so zsh does not read `\n` or `\c` in it as escapes), so the up arrow
    /// brings it back exactly; it is never run. Works in bash and zsh.
    public var shellScript: String {
        var lines: [String] = []
        if let directory { lines.append("cd -- \(ShellWord.quoted(directory))") }
        if let command {
            let word = ShellWord.quoted(command)
            lines.append("if [ -n \"${ZSH_VERSION-}\" ]; then print -rs -- \(word); else history -s -- \(word); fi")
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
