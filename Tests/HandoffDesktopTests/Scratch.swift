import Foundation
import HandoffDesktop
import Testing

/// A fresh folder under /tmp, removed when the test drops it.
final class Scratch: @unchecked Sendable {
    let path: String

    init() throws {
        var bytes = Array((NSTemporaryDirectory() + "/handoff-desktop-tests-XXXXXX").utf8CString)
        guard let made = mkdtemp(&bytes) else { throw CocoaError(.fileWriteUnknown) }
        path = (String(cString: made) as NSString).standardizingPath
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` (folders created), returning the path.
    @discardableResult
    func write(_ name: String, _ text: String, executable: Bool = false) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        guard executable else {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        // An executable is written through a descriptor that no other test's child can inherit (O_CLOEXEC): the
        // suites spawn processes in parallel, and one that inherited the open descriptor made running this file
        // fail with ETXTBSY ("Text file busy") while it lived (a hook's offer never ran, 1 run in 6).
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Foundation.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }

    /// A clone at `name` whose remotes are `remotes` (name → URL), with `branch` checked out.
    func clone(_ name: String, remotes: [String: String], branch: String = "main") throws {
        var config = "[core]\n\trepositoryformatversion = 0\n"
        for (remote, url) in remotes.sorted(by: { $0.key < $1.key }) {
            config += "[remote \"\(remote)\"]\n\turl = \(url)\n\tfetch = +refs/heads/*:refs/remotes/\(remote)/*\n"
        }
        try write(name + "/.git/config", config)
        try write(name + "/.git/HEAD", "ref: refs/heads/\(branch)\n")
    }
}

/// Runs `sh -c script` (or bash, zsh), returning its standard output and status. Through ``Tool`` (posix_spawn),
/// since the scripts start daemonising tools (`xclip -i`, `wl-copy`) that Foundation's Process would wait for.
func shell(_ script: String, program: String = "/bin/sh", environment: [String: String] = [:]) async throws
    -> (output: String, status: Int32) {
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { _, new in new }
    let name = (program as NSString).lastPathComponent
    let tool = try #require(Tool.find(name, in: ["PATH": (program as NSString).deletingLastPathComponent]))
    let result = try await tool.run(["-c", script], environment: env)
    return (String(decoding: result.output, as: UTF8.self), result.status)
}

/// Waits until `condition` holds (at most `seconds`), for results of background processes; not a timing check.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}
