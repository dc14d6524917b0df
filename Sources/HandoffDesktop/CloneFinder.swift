import Foundation

/// Finds local clones of a repository by remote URL, in the folders a user keeps clones in.
///
/// It looks in `HANDOFF_CLONES` (folders separated by `:`) when set, else in `~/src`, `~/code`, `~/projects`,
/// `~/git`, `~/repos`, `~/work`, `~/dev` and `~` itself; in each, a clone may sit up to ``depth`` folders down
/// (`~/src/github.com/acme/handoff`). Hidden folders are skipped, and a clone's own folders are not searched.
/// Remotes are read from `.git/config` directly, so searching runs no program.
public struct CloneFinder: Sendable {
    /// A local clone.
    public struct Clone: Sendable, Equatable {
        /// Its working tree.
        public var path: String
        /// Its remotes, by name.
        public var remotes: [String: GitRemote]
    }

    /// The folders searched, in order.
    public let roots: [String]
    /// How many folders below a root a clone may be.
    public var depth = 3
    /// Stop after visiting this many folders (a home with a huge tree still answers quickly).
    public var folderLimit = 20_000

    /// The folders `environment` says (`HANDOFF_CLONES`, else the defaults under `HOME`).
    public init(environment: [String: String]) {
        if let configured = environment["HANDOFF_CLONES"], !configured.isEmpty {
            roots = configured.split(separator: ":").map(String.init)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            roots = ["src", "code", "projects", "git", "repos", "work", "dev"].map { home + "/" + $0 } + [home]
        }
    }

    /// Searches exactly `roots`.
    public init(roots: [String]) {
        self.roots = roots
    }

    /// Every clone with a remote equal to `remote`, in search order, without duplicates.
    public func clones(of remote: GitRemote) -> [Clone] {
        var found: [Clone] = []
        var seen = Set<String>()
        var visited = 0
        for root in roots {
            search(root, level: 0, visited: &visited) { clone in
                guard clone.remotes.values.contains(remote), seen.insert(clone.path).inserted else { return }
                found.append(clone)
            }
        }
        return found
    }

    private func search(_ folder: String, level: Int, visited: inout Int, found: (Clone) -> Void) {
        guard visited < folderLimit else { return }
        visited += 1
        let gitConfig = folder + "/.git/config"
        if let text = try? String(contentsOfFile: gitConfig, encoding: .utf8) {
            found(Clone(path: folder, remotes: Self.remotes(inGitConfig: text)))
            return
        }
        guard level < depth,
              let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let path = folder + "/" + entry
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
            else { continue }
            search(path, level: level + 1, visited: &visited, found: found)
        }
    }

    /// The `url` of every `[remote "NAME"]` section of a git config file.
    public static func remotes(inGitConfig text: String) -> [String: GitRemote] {
        var remotes: [String: GitRemote] = [:]
        var section: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                section = nil
                let inner = line.dropFirst().prefix { $0 != "]" }
                let parts = inner.split(separator: " ", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "remote" {
                    section = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            } else if let name = section, let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if key == "url", let remote = GitRemote(value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
                    remotes[name] = remote
                }
            }
        }
        return remotes
    }
}
