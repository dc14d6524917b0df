import Foundation
import HandoffDesktop

/// A real, headless desktop for the clipboard tests: Xvfb, or sway with its headless wlroots backend. Both are
/// installed by scripts/deps.sh test; a desktop that does not come up fails the test that needs it.
final class HeadlessDesktop: @unchecked Sendable {
    /// The environment a client of this desktop runs with (DISPLAY, or WAYLAND_DISPLAY and XDG_RUNTIME_DIR).
    let environment: [String: String]
    private let server: Tool.Running
    private let scratch: Scratch

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private init(server: Tool.Running, environment: [String: String], scratch: Scratch) {
        self.server = server
        self.environment = environment
        self.scratch = scratch
    }

    deinit {
        server.terminate()
    }

    static var basePath: [String: String] { ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": NSTemporaryDirectory()] }

    /// An X server on a free display number.
    static func xvfb() async throws -> HeadlessDesktop {
        let scratch = try Scratch()
        let number = Int.random(in: 200...900)
        let server = try Tool(name: "Xvfb", path: "/usr/bin/Xvfb")
            .start([":\(number)", "-nolisten", "tcp", "-screen", "0", "640x480x24"], environment: basePath)
        let desktop = HeadlessDesktop(server: server, environment: basePath.merging(["DISPLAY": ":\(number)"]) { $1 },
                                      scratch: scratch)
        guard await eventually(10, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }) else {
            throw Failure(description: "Xvfb :\(number) did not start")
        }
        return desktop
    }

    /// sway on wlroots' headless backend (no GPU, no input devices). sway refuses to run as root, so as root
    /// it runs as nobody, in a runtime folder nobody owns; root's clients reach its socket all the same.
    static func sway() async throws -> HeadlessDesktop {
        let scratch = try Scratch()
        let runtime = scratch.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try "".write(toFile: scratch.path + "/sway.config", atomically: true, encoding: .utf8)
        var environment = basePath
        environment.merge(["XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
                           "WLR_RENDERER": "pixman", "HOME": scratch.path]) { $1 }
        let server: Tool.Running
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: runtime)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: scratch.path + "/sway.config")
            server = try Tool(name: "setpriv", path: "/usr/bin/setpriv").start(
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway", "-c",
                 scratch.path + "/sway.config"], environment: environment)
        } else {
            server = try Tool(name: "sway", path: "/usr/bin/sway").start(["-c", scratch.path + "/sway.config"],
                                                                         environment: environment)
        }
        let socket = runtime + "/wayland-1"
        let desktop = HeadlessDesktop(
            server: server,
            environment: basePath.merging(["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1"]) { $1 },
            scratch: scratch)
        guard await eventually(10, { FileManager.default.fileExists(atPath: socket) }) else {
            throw Failure(description: "sway (headless) did not create \(socket)")
        }
        return desktop
    }
}
