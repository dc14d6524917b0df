import Foundation
import HandoffClient

/// Where a shell is: what `handoff shell-init`'s prompt hook offers as `org.handoff.terminal`.
///
/// Nothing from the shell's environment is sent except the variables named in `HANDOFF_TERMINAL_ENV`.
public struct TerminalState: Sendable, Equatable {
    /// The git repository the shell is in.
    public struct Repository: Sendable, Equatable {
        /// The remote the repository is found by on the other machine (origin, else the first remote), without
        /// any password.
        public var remote: GitRemote
        /// The branch checked out; nil when HEAD is detached.
        public var branch: String?
        /// The working directory relative to the repository's top (`""` at the top).
        public var path: String

        /// Creates a repository description.
        public init(remote: GitRemote, branch: String?, path: String) {
            self.remote = remote
            self.branch = branch
            self.path = path
        }
    }

    /// userInfo keys of an `org.handoff.terminal` activity.
    public enum Key {
        /// The working directory.
        public static let directory = "cwd"
        /// The repository's remote URL.
        public static let remote = "gitRemote"
        /// The branch.
        public static let branch = "gitBranch"
        /// The path inside the repository.
        public static let path = "gitPath"
        /// The last command line.
        public static let command = "lastCommand"
        /// An allow-listed environment variable is sent as `env.NAME`.
        public static let environmentPrefix = "env."
    }

    /// The working directory.
    public var directory: String
    /// The repository, when the directory is in one with a remote.
    public var repository: Repository?
    /// The last command line, if any.
    public var lastCommand: String?
    /// The allow-listed environment variables, by name.
    public var environment: [String: String]

    /// Creates a state.
    public init(directory: String, repository: Repository? = nil, lastCommand: String? = nil,
                environment: [String: String] = [:]) {
        self.directory = directory
        self.repository = repository
        self.lastCommand = lastCommand
        self.environment = environment
    }

    /// The variables of `environment` that `HANDOFF_TERMINAL_ENV` (names separated by spaces, commas or colons)
    /// allows; nothing when it is unset.
    public static func allowListed(_ environment: [String: String]) -> [String: String] {
        let names = (environment["HANDOFF_TERMINAL_ENV"] ?? "").split(whereSeparator: { " ,:".contains($0) })
        var chosen: [String: String] = [:]
        for name in names.map(String.init) where name != "HANDOFF_TERMINAL_ENV" {
            if let value = environment[name] { chosen[name] = value }
        }
        return chosen
    }

    /// `handoff on feature-x, in Sources` or the directory: a title that needs no continuing to be useful.
    public var title: String {
        guard let repository else { return directory }
        var title = repository.remote.name
        if let branch = repository.branch { title += " on \(branch)" }
        if !repository.path.isEmpty { title += ", in \(repository.path)" }
        return title
    }

    /// The state as an activity.
    public var activity: ActivityContent {
        var info = [Key.directory: directory]
        if let repository {
            info[Key.remote] = repository.remote.url
            info[Key.path] = repository.path
            if let branch = repository.branch { info[Key.branch] = branch }
        }
        if let lastCommand { info[Key.command] = lastCommand }
        for (name, value) in environment { info[Key.environmentPrefix + name] = value }
        return ActivityContent(type: ActivityKind.terminal.type, title: title, userInfo: info)
    }

    /// The state another device offered. Values are kept as sent; ``TerminalPlan`` decides what is safe to use.
    /// - Throws: ``DesktopError/Code/refused`` for another type or a state without a directory.
    public init(_ content: ActivityContent) throws(DesktopError) {
        guard content.type == ActivityKind.terminal.type, let directory = content.userInfo[Key.directory] else {
            throw DesktopError(.refused, "the activity carries no terminal state")
        }
        self.directory = directory
        let info = content.userInfo
        repository = info[Key.remote].flatMap(GitRemote.init).map {
            Repository(remote: $0, branch: info[Key.branch], path: info[Key.path] ?? "")
        }
        lastCommand = info[Key.command]
        var environment: [String: String] = [:]
        for (key, value) in info where key.hasPrefix(Key.environmentPrefix) {
            environment[String(key.dropFirst(Key.environmentPrefix.count))] = value
        }
        self.environment = environment
    }
}

extension TerminalState {
    /// The state of a shell in `directory` that last ran `command`. One run of `git rev-parse` finds the
    /// repository; its HEAD and config are then read as files. Run only when the prompt hook saw a change.
    public static func current(directory: String, command: String?, environment: [String: String])
        async -> TerminalState {
        let command = command.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        var state = TerminalState(directory: directory, lastCommand: command, environment: allowListed(environment))
        guard let git = Tool.find("git", in: environment),
              let answer = try? await git.output(
                ["-C", directory, "rev-parse", "--path-format=absolute", "--show-prefix", "--git-dir",
                 "--git-common-dir"], environment: environment)
        else { return state }
        let lines = String(decoding: answer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        guard lines.count >= 3 else { return state }
        var path = lines[0]
        while path.hasSuffix("/") { path.removeLast() }
        let head = (try? String(contentsOfFile: lines[1] + "/HEAD", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let branch = head.hasPrefix("ref: refs/heads/") ? String(head.dropFirst("ref: refs/heads/".count)) : nil
        guard let config = try? String(contentsOfFile: lines[2] + "/config", encoding: .utf8) else { return state }
        let remotes = CloneFinder.remotes(inGitConfig: config)
        guard let remote = remotes["origin"] ?? remotes.keys.sorted().first.flatMap({ remotes[$0] }) else {
            return state
        }
        state.repository = Repository(remote: remote, branch: branch, path: path)
        return state
    }
}
