import Foundation
import Testing

/// The real `handoff` binary against two in-process daemons: a copy pasted byte-exact, a web page opened by the
/// real xdg-open, a terminal continued in the clone of the same repository.
@Suite(.serialized) struct DesktopKindsThroughTheCLITests {
    func waitForSuccess(_ body: () async throws -> HandoffProgram.Result) async throws -> HandoffProgram.Result {
        var last = try await body()
        for _ in 0..<100 where last.status != 0 {
            try await Task.sleep(for: .milliseconds(100))
            last = try await body()
        }
        return last
    }

    @Test func copyOnTheLaptopPasteOnTheDesktop() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let text = "grüße 'quoted' $(not run)\n"
        let copy = try await laptop.run(["copy"], input: text)
        #expect(copy.status == 0, "\(copy.error)")
        let paste = try await waitForSuccess { try await desktop.run(["paste"]) }
        #expect(paste.status == 0, "\(paste.error)")
        #expect(paste.output == text)
    }

    @Test func aWebPageOpensThroughTheRealXdgOpenAndAFileLinkNever() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let home = desktop.home.path
        let record = home + "/opened"
        let handler = home + "/record-url"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(record)'\n".write(toFile: handler, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: handler)
        try FileManager.default.createDirectory(atPath: home + "/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Record\nExec=\(handler) %u\nMimeType=x-scheme-handler/https;\n"
            .write(toFile: home + "/applications/record-url.desktop", atomically: true, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/https=record-url.desktop\n"
            .write(toFile: home + "/.config/mimeapps.list", atomically: true, encoding: .utf8)
        desktop.extraEnvironment = ["DISPLAY": ":0", "XDG_DATA_DIRS": home]

        let url = "https://example.org/handoff?q=$(id)&x='y'"
        #expect(try await laptop.run(["open", url]).status == 0)
        let opened = try await waitForSuccess { try await desktop.run(["continue", "--type", "org.handoff.web"]) }
        #expect(opened.status == 0, "\(opened.error)")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == url + "\n")

        #expect(try await laptop.run(["open", "file:///etc/shadow"]).status == 0)
        var refused = try await desktop.run(["continue", "--type", "org.handoff.web"])
        for _ in 0..<100 where refused.status == 3 {
            try await Task.sleep(for: .milliseconds(100))
            refused = try await desktop.run(["continue", "--type", "org.handoff.web"])
        }
        #expect(refused.status == 65)
        #expect(refused.output == "file:///etc/shadow\n")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == url + "\n")
    }

    @Test func aTerminalContinuesInTheCloneOfTheSameRepository() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let repository = laptop.home.path + "/src/handoff"
        let clone = desktop.home.path + "/code/handoff"
        for (path, branch, remote) in [(repository, "feature/login", "git@github.com:acme/handoff.git"),
                                       (clone, "main", "https://github.com/acme/handoff")] {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/bin/sh")
            git.arguments = ["-c", "git init -q -b '\(branch)' '\(path)' && git -C '\(path)' remote add origin "
                + "'\(remote)' && mkdir -p '\(path)/Sources/Kit'"]
            try git.run()
            git.waitUntilExit()
            #expect(git.terminationStatus == 0)
        }
        let offer = try await laptop.run(["terminal", "offer", "--cwd", repository + "/Sources/Kit",
                                          "--command", "make test"])
        #expect(offer.status == 0, "\(offer.error)")
        desktop.extraEnvironment = ["HANDOFF_CLONES": desktop.home.path + "/code"]
        let continued = try await waitForSuccess {
            try await desktop.run(["continue", "--type", "org.handoff.terminal"])
        }
        #expect(continued.status == 0, "\(continued.error)")
        #expect(continued.error.contains("terminal from laptop: handoff on feature/login, in Sources/Kit"))
        #expect(continued.output == "cd -- '\(clone)/Sources/Kit'\ngit -C '\(clone)' switch -- 'feature/login'\n"
            + "# last command, not run: make test\n")
    }
}
