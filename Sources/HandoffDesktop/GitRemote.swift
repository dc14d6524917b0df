/// A git remote URL reduced to what names the repository, so that every way of writing it compares equal:
/// `git@github.com:acme/handoff.git`, `ssh://git@github.com/acme/handoff`, `https://user@github.com/acme/handoff/`
/// all become `github.com/acme/handoff`.
public struct GitRemote: Sendable, Hashable, CustomStringConvertible {
    /// `host/path`, lower-cased, without user, port, scheme, trailing slash or `.git`; for a local remote, its path.
    public let key: String
    /// The URL as given, without any password (`https://user:secret@host/…` loses `:secret`).
    public let url: String

    /// Parses a remote URL; nil for an empty one.
    public init?(_ url: String) {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        var host = "", path = ""
        var shown = trimmed
        if let schemeEnd = trimmed.range(of: "://") {
            let rest = trimmed[schemeEnd.upperBound...]
            let authority = rest.prefix { $0 != "/" }
            path = String(rest.dropFirst(authority.count))
            var hostPort = Substring(authority)
            if let at = authority.lastIndex(of: "@") {
                let user = authority[..<at]
                hostPort = authority[authority.index(after: at)...]
                if let colon = user.firstIndex(of: ":") {   // a password: never shown, never sent
                    shown = String(trimmed[..<schemeEnd.upperBound]) + user[..<colon] + "@" + hostPort + path
                }
            }
            host = String(hostPort.prefix { $0 != ":" })
            if trimmed.lowercased().hasPrefix("file://") { host = "" }
        } else if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/") {
            // scp-like: [user@]host:path
            let authority = trimmed[..<colon]
            host = String(authority.split(separator: "@").last ?? authority)
            path = String(trimmed[trimmed.index(after: colon)...])
        } else {
            path = trimmed   // a local path
        }
        while path.hasSuffix("/") { path.removeLast() }
        if path.lowercased().hasSuffix(".git") { path.removeLast(4) }
        while path.hasSuffix("/") { path.removeLast() }
        if !host.isEmpty { while path.hasPrefix("/") { path.removeFirst() } }
        guard !path.isEmpty else { return nil }
        key = (host.isEmpty ? path : host + "/" + path).lowercased()
        self.url = shown
    }

    /// The repository's name, the last part of its path (`handoff`), as `git clone` names the folder.
    public var name: String {
        String(key.split(separator: "/").last ?? Substring(key))
    }

    /// The key.
    public var description: String { key }

    /// Equal when the keys are.
    public static func == (a: GitRemote, b: GitRemote) -> Bool { a.key == b.key }

    /// Hashes the key.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}
