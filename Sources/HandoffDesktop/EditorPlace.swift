import CSodium
import Foundation
import HandoffClient

/// A place in a file being edited: what the Neovim plugin (integrations/nvim) offers as `org.handoff.editor`
/// through `handoff editor offer`.
///
/// The file travels as its repository's remote and its path inside the repository, never as a path alone: the
/// other machine finds its own clone of the same repository (``CloneFinder``), as terminal follow does.
public struct EditorPlace: Sendable, Equatable {
    /// userInfo keys of an `org.handoff.editor` activity.
    public enum Key {
        /// The repository's remote URL.
        public static let remote = "gitRemote"
        /// The branch checked out.
        public static let branch = "gitBranch"
        /// The file's path inside the repository, `/`-separated.
        public static let path = "gitPath"
        /// The cursor's line, from 1.
        public static let line = "line"
        /// The cursor's column, from 1 (a byte column, as Neovim's `col('.')`).
        public static let column = "column"
        /// The SHA-256 of the buffer's text as the editor holds it, 64 hex digits.
        public static let sha256 = "sha256"
        /// `true` when the buffer has changes not written to the file.
        public static let modified = "modified"
    }

    /// The repository's remote (origin, else the first), without any password.
    public var remote: GitRemote
    /// The branch checked out, if any.
    public var branch: String?
    /// The path inside the repository.
    public var path: String
    /// The cursor's line and column, from 1.
    public var line: Int
    public var column: Int
    /// The buffer's SHA-256 in lower-case hex, when known.
    public var sha256: String?
    /// Whether the buffer has unwritten changes.
    public var modified: Bool

    /// Creates a place.
    public init(remote: GitRemote, branch: String?, path: String, line: Int, column: Int, sha256: String?,
                modified: Bool) {
        self.remote = remote
        self.branch = branch
        self.path = path
        self.line = line
        self.column = column
        self.sha256 = sha256
        self.modified = modified
    }

    /// `handoff: Sources/Kit/File.swift:12`.
    public var title: String { "\(remote.name): \(path):\(line)" }

    /// The place as an activity.
    public var activity: ActivityContent {
        var info = [Key.remote: remote.url, Key.path: path, Key.line: String(line), Key.column: String(column),
                    Key.modified: modified ? "true" : "false"]
        if let branch { info[Key.branch] = branch }
        if let sha256 { info[Key.sha256] = sha256 }
        return ActivityContent(type: ActivityKind.editor.type, title: title, userInfo: info)
    }

    /// The place another device offered. Values are kept as sent (the path unchecked); ``EditorPlan`` decides
    /// what is safe to open.
    /// - Throws: ``DesktopError/Code/refused`` for another type, or a missing remote, path or position.
    public init(_ content: ActivityContent) throws(DesktopError) {
        let info = content.userInfo
        guard content.type == ActivityKind.editor.type, let remote = info[Key.remote].flatMap(GitRemote.init),
              let path = info[Key.path] else {
            throw DesktopError(.refused, "the activity carries no file in a repository")
        }
        guard let line = info[Key.line].flatMap(Int.init), line >= 1,
              let column = info[Key.column].flatMap(Int.init), column >= 1 else {
            throw DesktopError(.refused, "the activity's line or column is not a number from 1")
        }
        self.init(remote: remote, branch: info[Key.branch], path: path, line: min(line, 100_000_000),
                  column: min(column, 100_000_000), sha256: info[Key.sha256].flatMap(Self.validDigest),
                  modified: info[Key.modified] == "true")
    }

    /// `text` lower-cased when it is 64 hex digits, else nil.
    static func validDigest(_ text: String) -> String? {
        let lowered = text.lowercased()
        return lowered.utf8.count == 64 && lowered.allSatisfy(\.isHexDigit) ? lowered : nil
    }

    /// The place of `file` (an absolute path) at `line`:`column`, found with one `git rev-parse` in its folder.
    /// - Throws: ``DesktopError/Code/refused`` when the file is not in a git repository with a remote.
    public static func current(file: String, line: Int, column: Int, sha256: String?, modified: Bool,
                               environment: [String: String]) async throws(DesktopError) -> EditorPlace {
        let url = URL(fileURLWithPath: file)
        let folder = url.deletingLastPathComponent().path
        let state = await TerminalState.current(directory: folder, command: nil, environment: environment)
        guard let repository = state.repository else {
            throw DesktopError(.refused, "\(ActivitySummary.printable(file)) is not in a git repository with a "
                + "remote; only such files are offered (the other machine finds its clone by the remote)")
        }
        let path = repository.path.isEmpty ? url.lastPathComponent : repository.path + "/" + url.lastPathComponent
        return EditorPlace(remote: repository.remote, branch: repository.branch, path: path, line: max(line, 1),
                           column: max(column, 1), sha256: sha256.flatMap(validDigest), modified: modified)
    }
}

/// Where `handoff continue` opens an `org.handoff.editor` place: the same path in the local clone of the same
/// repository. Nothing is opened or written by making a plan.
///
/// The path comes from another device: it must be relative, plain (no `.` or `..` part, no empty part, no
/// control character) and, with every symbolic link resolved, stay inside the clone.
public struct EditorPlan: Sendable, Equatable {
    /// Where the plan leads.
    public enum Outcome: Sendable, Equatable {
        /// The file in a local clone; `others` are more clones of the same repository.
        case file(path: String, clone: String, others: [String])
        /// No clone of the repository was found.
        case noClone(remote: GitRemote, searched: [String])
        /// The clone has no such file.
        case missing(path: String, clone: String)
        /// The path was refused: it is not plain, or leads out of the clone.
        case refused(String)
    }

    /// How the local copy compares with the source's buffer.
    public enum Comparison: Sendable, Equatable {
        /// The same text.
        case same
        /// Different text: the user is told; nothing is changed.
        case differs
        /// The source sent no digest, or the file could not be read.
        case unknown
    }

    /// Where to open.
    public var outcome: Outcome
    /// How the local file compares with the source's buffer (``Comparison/unknown`` unless `outcome` is a file).
    public var comparison: Comparison
    /// The place.
    public var place: EditorPlace

    /// Plans for `place` with the clones `finder` finds.
    public init(for place: EditorPlace, finder: CloneFinder) {
        self.place = place
        comparison = .unknown
        guard let relative = Self.plainRelativePath(place.path) else {
            outcome = .refused("the path inside the repository is not a plain relative path: "
                + ActivitySummary.printable(place.path))
            return
        }
        let clones = finder.clones(of: place.remote)
        guard let clone = clones.first else {
            outcome = .noClone(remote: place.remote, searched: finder.roots)
            return
        }
        let candidate = clone.path + "/" + relative
        guard let real = Self.resolved(candidate), let root = Self.resolved(clone.path) else {
            outcome = .missing(path: candidate, clone: clone.path)
            return
        }
        guard real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            outcome = .refused("\(ActivitySummary.printable(relative)) leads out of the clone "
                + "\(ActivitySummary.printable(clone.path)) (through a symbolic link); it is not opened")
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else {
            outcome = .missing(path: candidate, clone: clone.path)
            return
        }
        outcome = .file(path: candidate, clone: clone.path, others: clones.dropFirst().map(\.path))
        if let digest = place.sha256, let local = Self.sha256(ofFile: real) {
            comparison = local == digest ? .same : .differs
        }
    }

    /// The file to open, if any.
    public var file: String? {
        if case .file(let path, _, _) = outcome { return path }
        return nil
    }

    /// `path` as plain `/`-separated parts, or nil when it is absolute, empty, has a `.`, `..` or empty part, a
    /// control character or a backslash, or is longer than 4096 bytes.
    public static func plainRelativePath(_ path: String) -> String? {
        guard !path.isEmpty, path.utf8.count <= 4096, !path.hasPrefix("/"), !path.contains("\\"),
              !ShellWord.hasControlCharacters(path) else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return path
    }

    /// `path` with every symbolic link resolved, nil when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The SHA-256 of a file's bytes in lower-case hex; nil when it cannot be read.
    public static func sha256(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        while true {
            let read: Data?
            do { read = try handle.read(upToCount: 1 << 20) } catch { return nil }
            guard let chunk = read, !chunk.isEmpty else { break }   // nil or empty: the end
            _ = chunk.withUnsafeBytes {
                crypto_hash_sha256_update(&state, $0.bindMemory(to: UInt8.self).baseAddress, UInt64($0.count))
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The arguments that open the file at the place in an editor whose command is `editor`: `+call cursor(L, C)`
    /// and `--` for Vim and Neovim, `+L` for the others (nano, Emacs, vi).
    public func editorArguments(editor: String) -> [String]? {
        guard let file else { return nil }
        let program = editor.split(separator: " ").first.map { String($0.split(separator: "/").last ?? $0) } ?? ""
        if ["nvim", "vim", "gvim", "nvim-qt"].contains(program) {
            return ["+call cursor(\(place.line), \(place.column))", "--", file]
        }
        return ["+\(place.line)", file]
    }

    /// The Vim expression that a running Neovim (`nvim --server ADDRESS --remote-expr`) evaluates to open the file
    /// at the place: the path as a single-quoted Vim string, escaped with `fnameescape`, never typed as keys.
    public var remoteExpression: String? {
        guard let file else { return nil }
        let quoted = "'" + file.replacingOccurrences(of: "'", with: "''") + "'"
        return "execute('edit ' .. fnameescape(\(quoted))) .. execute('call cursor(\(place.line), \(place.column))')"
    }
}
