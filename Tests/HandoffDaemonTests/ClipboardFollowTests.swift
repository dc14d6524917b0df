import Foundation
import HandoffDesktop
import HandoffShared
import Testing

/// `handoff clipboard follow` on a real X server (Xvfb) with the real xclip, against two daemons: each new copy is
/// offered, a password manager's secret and a copy made while paused are not.
@Suite(.serialized) struct ClipboardFollowTests {
    @Test func followOffersNewCopiesAndSkipsSecretsAndPausedOnes() async throws {
        let number = Int.random(in: 200...900)
        let xvfb = try Tool(name: "Xvfb", path: "/usr/bin/Xvfb")
            .start([":\(number)", "-nolisten", "tcp"], environment: ["PATH": "/usr/bin:/bin"])
        defer { xvfb.terminate() }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
            try await Task.sleep(for: .milliseconds(100))
        }
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        var laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        laptop.extraEnvironment = ["DISPLAY": ":\(number)", "XDG_RUNTIME_DIR": laptop.home.path]
        let environment = laptop.environment
        let xclip = try #require(Tool.find("xclip", in: environment))
        func copy(_ text: String, type: String = "UTF8_STRING") async throws {
            let result = try await xclip.run(["-selection", "clipboard", "-i", "-t", type], input: Data(text.utf8),
                                             environment: environment, keepsOutput: false)
            #expect(result.status == 0)
        }
        try await copy("there before")
        // Its status lines (standard error) come through standard output here.
        let follow = try #require(Tool.find("sh", in: environment)).start(
            ["-c", "exec \"$0\" clipboard follow 2>&1", laptop.executable], environment: environment, keepsOutput: true)
        defer { follow.terminate() }
        let lines = Locked<[String]>([])
        let reader = Thread {
            while let data = follow.output?.availableData, !data.isEmpty {
                lines.withLock { $0 += String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init) }
            }
        }
        reader.start()
        func waitForLine(_ count: Int) async throws {
            for _ in 0..<150 where lines.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(100)) }
            #expect(lines.withLock { $0.count } >= count, "\(lines.withLock { $0 })")
        }
        try await waitForLine(1)   // following …

        try await copy("first copy")
        try await waitForLine(2)
        try await copy("s3cret", type: "x-kde-passwordManagerHint")
        try await waitForLine(3)
        let pause = try await laptop.run(["clipboard", "pause"])
        #expect(pause.status == 0)
        try await copy("while paused")
        try await waitForLine(4)
        #expect(try await laptop.run(["clipboard", "resume"]).status == 0)
        try await copy("last copy")
        try await waitForLine(5)
        #expect(lines.withLock { Array($0.dropFirst()) } == [
            "handoff: offered text, 10 characters", "handoff: skipped a copy marked as a secret",
            "handoff: paused: a copy was not offered", "handoff: offered text, 9 characters",
        ])
        var pasted = try await desktop.run(["paste"])
        for _ in 0..<100 where pasted.output != "last copy" {
            try await Task.sleep(for: .milliseconds(100))
            pasted = try await desktop.run(["paste"])
        }
        #expect(pasted.output == "last copy")
    }
}
