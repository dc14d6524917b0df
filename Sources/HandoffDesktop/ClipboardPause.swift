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

/// What `handoff paste --set` last put on this session's clipboard, so that `handoff clipboard follow` does not
/// offer it straight back to the device it came from. Kept as a 64-bit FNV-1a digest of the bytes in
/// `<session folder>/clipboard-pasted`.
public struct PastedMark: Sendable {
    /// The mark file.
    public let path: String

    /// The mark of the session `environment` describes.
    public init(environment: [String: String]) {
        path = ClipboardPause.sessionDirectory(environment: environment) + "/clipboard-pasted"
    }

    /// Records that `item` was pasted here (best effort: a mark that cannot be written only costs a re-offer).
    public func record(_ item: ClipboardItem) {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        try? Self.digest(item).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Whether `item` is what was last pasted here.
    public func isPasted(_ item: ClipboardItem) -> Bool {
        (try? String(contentsOfFile: path, encoding: .utf8)) == Self.digest(item)
    }

    static func digest(_ item: ClipboardItem) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in Data(item.mediaType.rawValue.utf8) + item.data {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return String(hash, radix: 16) + " \(item.data.count)\n"
    }
}
