import Foundation

/// Whether `handoff clipboard follow` is paused: a flag file, so `handoff clipboard pause` in any terminal pauses
/// every follower of the session at once, and a follower started later starts paused. It lives in
/// `$XDG_RUNTIME_DIR/handoff/` (gone at logout), else `$XDG_STATE_HOME/handoff/` (default `~/.local/state`).
public struct ClipboardPause: Sendable {
    /// The flag file.
    public let path: String

    /// The flag of the session `environment` describes.
    public init(environment: [String: String]) {
        path = Self.sessionDirectory(environment: environment) + "/clipboard-paused"
    }

    /// Where handoff keeps a login session's small files: `$XDG_RUNTIME_DIR/handoff`, else
    /// `$XDG_STATE_HOME/handoff`, else `~/.local/state/handoff`.
    public static func sessionDirectory(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/handoff" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/handoff" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/handoff"
    }

    /// Whether followers skip copies now (one stat, checked on every copy).
    public var isPaused: Bool { FileManager.default.fileExists(atPath: path) }

    /// Pauses (idempotent).
    public func pause() throws(DesktopError) {
        do {
            let directory = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: path, contents: Data()) else {
                throw DesktopError(.toolFailed, "cannot create \(path)")
            }
        } catch let error as DesktopError {
            throw error
        } catch {
            throw DesktopError(.toolFailed, "cannot create \(path): \(error.localizedDescription)")
        }
    }

    /// Resumes (idempotent).
    public func resume() throws(DesktopError) {
        guard isPaused else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw DesktopError(.toolFailed, "cannot remove \(path): \(error.localizedDescription)")
        }
    }
}
