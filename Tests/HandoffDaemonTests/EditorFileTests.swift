import Foundation
import HandoffClient
import Testing

/// The file in the editor, in the real editor: Neovim, headless, with the plugin of integrations/nvim running the
/// built `handoff editor offer` against the laptop's daemon; `handoff continue --server` on the desktop opens the
/// file in the desktop's own Neovim, in its clone of the same remote at another path.
@Suite(.serialized) struct EditorFileTests {
    static let remote = "https://example.org/acme/proj.git"
    static let text = "first line\nsecond line\nthe third line, with words\nlast\n"

    /// A headless Neovim listening on a socket, with the plugin loaded and `handoff` on its PATH.
    struct Neovim {
        let process: Process
        let socket: String
        let nvim: String

        init(home: String, busAddress: String, handoff: String, file: String?) async throws {
            nvim = try RealPrograms.path(of: "nvim")
            socket = home + "/nvim-\(UUID().uuidString.prefix(8)).sock"
            let folder = (handoff as NSString).deletingLastPathComponent
            let environment = ["HOME": home, "PATH": folder + ":/usr/bin:/bin", "HANDOFF_BUS_ADDRESS": busAddress,
                               "LANG": "C.UTF-8"]
            process = try RealPrograms.start(
                nvim, ["--headless", "--clean", "--listen", socket, "--cmd",
                       "set rtp^=" + RealPrograms.repository + "/integrations/nvim", "--cmd", "set updatetime=100"]
                    + (file.map { [$0] } ?? []),
                environment: environment)
            let socket = socket
            let listening = try await RealPrograms.eventually(seconds: 10) {
                FileManager.default.fileExists(atPath: socket)
            }
            #expect(listening, "nvim did not listen on \(socket)")
        }

        /// Evaluates a Vim expression in it.
        @discardableResult
        func evaluate(_ expression: String) throws -> String {
            let result = try RealPrograms.run(nvim, ["--server", socket, "--remote-expr", expression], errorsToo: true)
            #expect(result.status == 0, "nvim --remote-expr \(expression) failed")
            return result.output
        }

        /// `path:line:column` of the current window.
        func place() throws -> String {
            try evaluate("expand('%:p') .. ':' .. line('.') .. ':' .. col('.')")
        }

        func quit() {
            _ = try? RealPrograms.run(nvim, ["--server", socket, "--remote-expr", "execute('qa!')"])
            RealPrograms.stop(process)
        }
    }

    /// The laptop's repository (a commit of `lib/code.txt`) and the desktop's clone of it under `code/`, whose
    /// origin names the same remote.
    func makeRepositories(laptop: String, desktop: String) throws -> (source: String, clone: String) {
        let git = try RealPrograms.path(of: "git")
        let source = laptop + "/src/proj", clone = desktop + "/code/proj"
        try FileManager.default.createDirectory(atPath: source + "/lib", withIntermediateDirectories: true)
        try Self.text.write(toFile: source + "/lib/code.txt", atomically: true, encoding: .utf8)
        let identity = ["-c", "user.name=Test", "-c", "user.email=test@example.org"]
        for arguments in [["init", "-q", "-b", "main", source], ["-C", source, "remote", "add", "origin", Self.remote],
                          ["-C", source, "add", "."], identity + ["-C", source, "commit", "-q", "-m", "start"],
                          ["clone", "-q", source, clone], ["-C", clone, "remote", "set-url", "origin", Self.remote]] {
            let result = try RealPrograms.run(git, arguments)
            #expect(result.status == 0, "git \(arguments) failed")
        }
        return (source, clone)
    }

    /// Whether the laptop offers a file titled `title` and the desktop lists it. A beacon carries no title (the
    /// desktop's list names only the type until it is continued), so the title is the laptop's own status.
    func offered(_ title: String, laptop: any HandoffService, desktop: any HandoffService) async throws -> Bool {
        let current = try await laptop.status().currentActivity
        guard current?.type == "org.handoff.editor", current?.title == title else { return false }
        return try await desktop.availableActivities().map(\.type) == ["org.handoff.editor"]
    }

    @Test func theFileOpensInTheOtherClonesNeovimAtTheSamePlace() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let (source, clone) = try makeRepositories(laptop: laptop.home.path, desktop: desktop.home.path)
        let client = try await machines.desktop.client(), offering = try await machines.laptop.client()

        let editing = try await Neovim(home: laptop.home.path, busAddress: machines.laptop.bus.address,
                                       handoff: laptop.executable, file: source + "/lib/code.txt")
        defer { editing.quit() }
        try editing.evaluate("execute('normal! 3G9|')")   // line 3, column 9: the cursor moves, CursorHold offers
        #expect(try editing.place() == source + "/lib/code.txt:3:9")
        let offered = try await RealPrograms.eventually {
            try await self.offered("proj: lib/code.txt:3", laptop: offering, desktop: client)
        }
        let current = try await offering.status().currentActivity
        #expect(offered, "the laptop offers \(String(describing: current))")

        let reading = try await Neovim(home: desktop.home.path, busAddress: machines.desktop.bus.address,
                                       handoff: desktop.executable, file: nil)
        defer { reading.quit() }
        desktop.extraEnvironment = ["HANDOFF_CLONES": desktop.home.path + "/code"]
        let continued = try await desktop.run(["continue", "--type", "org.handoff.editor", "--server", reading.socket])
        #expect(continued.status == 0, "\(continued.error)")
        #expect(continued.error.contains("file in the editor from laptop: proj: lib/code.txt:3"))
        #expect(!continued.error.contains("differs"))
        #expect(try reading.place() == clone + "/lib/code.txt:3:9")
    }

    @Test func aCopyThatDiffersFromTheBufferIsOpenedAsItIsAndTheUserTold() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let (source, clone) = try makeRepositories(laptop: laptop.home.path, desktop: desktop.home.path)
        let client = try await machines.desktop.client(), offering = try await machines.laptop.client()

        let editing = try await Neovim(home: laptop.home.path, busAddress: machines.laptop.bus.address,
                                       handoff: laptop.executable, file: source + "/lib/code.txt")
        defer { editing.quit() }
        // An edit not saved: the buffer differs from both files.
        try editing.evaluate("execute('normal! 2GAchanged')")
        #expect(try editing.evaluate("&modified") == "1")
        #expect(try await RealPrograms.eventually {
            try await self.offered("proj: lib/code.txt:2", laptop: offering, desktop: client)
        })

        desktop.extraEnvironment = ["HANDOFF_CLONES": desktop.home.path + "/code"]
        let continued = try await desktop.run(["continue", "--type", "org.handoff.editor", "--print"])
        #expect(continued.status == 0, "\(continued.error)")
        #expect(continued.error.contains("your copy of lib/code.txt differs from the buffer on laptop (it has changes "
            + "not saved there); it is opened as it is here, and nothing was changed"))
        #expect(continued.output == clone + "/lib/code.txt:2:18\n")
        #expect(try String(contentsOfFile: clone + "/lib/code.txt", encoding: .utf8) == Self.text)
        #expect(try String(contentsOfFile: source + "/lib/code.txt", encoding: .utf8) == Self.text)
    }

    @Test func aPathThatLeavesTheCloneIsRefusedAndNothingOpened() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { desktop.remove() }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { laptop.remove() }
        _ = try makeRepositories(laptop: laptop.home.path, desktop: desktop.home.path)
        let hostile = ActivityContent(type: "org.handoff.editor", title: "proj: x", userInfo: [
            "gitRemote": Self.remote, "gitPath": "../../../../etc/passwd", "line": "1", "column": "1"])
        let offering = try await machines.laptop.client()
        _ = try await offering.setCurrentActivity(hostile)
        let client = try await machines.desktop.client()
        #expect(try await RealPrograms.eventually {
            try await self.offered("proj: x", laptop: offering, desktop: client)
        })
        desktop.extraEnvironment = ["HANDOFF_CLONES": desktop.home.path + "/code"]
        let continued = try await desktop.run(["continue", "--type", "org.handoff.editor", "--print"])
        #expect(continued.status == 65)
        #expect(continued.error.contains("not opened: the path inside the repository is not a plain relative path"))
        #expect(continued.output.isEmpty)
    }
}
