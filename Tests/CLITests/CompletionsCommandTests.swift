import Foundation
import Testing

@Suite struct CompletionsCommandTests {
    @Test func bashScriptCompletesHandoffCommandsAndNoteNames() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        try handoff.run(["note", "edit", "shopping list", "--stdin"], input: "x\n")
        let script = try handoff.run(["completions", "bash"])
        #expect(script.status == 0)
        let bin = URL(fileURLWithPath: handoff.executable).deletingLastPathComponent().path
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let driver = script.output + "\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _handoff\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
            let scriptPath = handoff.home + "/driver.sh"
            try driver.write(toFile: scriptPath, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [scriptPath]
            process.environment = ["PATH": bin + ":/usr/bin:/bin", "HOME": handoff.home,
                                   "XDG_DATA_HOME": handoff.home + "/data"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try complete(["handoff", "co"]) == ["continue", "completions", "copy"])
        #expect(try complete(["handoff", "note", ""]) == ["edit", "list", "show"])
        #expect(try complete(["handoff", "note", "edit", "--"]) == ["--stdin", "--grace", "--help"])
        #expect(try complete(["handoff", "note", "show", "sh"]) == ["shopping list"])
        #expect(try complete(["handoff", "completions", ""]) == ["bash", "zsh"])
    }

    @Test func zshScriptIsValid() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let script = try handoff.run(["completions", "zsh"])
        #expect(script.status == 0)
        #expect(script.output.hasPrefix("#compdef handoff\n"))
        let path = handoff.home + "/_handoff"
        try script.output.write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zsh")
        process.arguments = ["-n", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func zshCompletesInAnInteractiveShell() throws {
        // Drives a real interactive zsh on a pseudo-terminal (zsh/zpty): type a partial line, press Tab twice,
        // check the listing. The driver script sits next to this file.
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        try handoff.run(["note", "edit", "shopping list", "--stdin"], input: "x\n")
        let scriptPath = handoff.home + "/_handoff"
        try handoff.run(["completions", "zsh"]).output.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("zsh-complete.zsh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zsh")
        process.arguments = ["-f", driver.path, scriptPath,
                             "handoff note ", "*edit  --*list  --*show  --*",
                             "handoff completions ", "*bash*zsh*",
                             "handoff note edit --", "*--grace*--stdin*",
                             "handoff note show sh", "*shopping\\\\ list*",
                             "handoff contin", "*handoff continue*"]
        let bin = URL(fileURLWithPath: handoff.executable).deletingLastPathComponent().path
        process.environment = ["PATH": bin + ":/usr/bin:/bin", "HOME": handoff.home,
                               "XDG_DATA_HOME": handoff.home + "/data", "TERM": "xterm"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zsh completion failed:\n\(text)")
        #expect(text.components(separatedBy: "OK ").count == 6, "\(text)")
    }

    @Test func manualPageRendersCleanly() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let page = try handoff.run(["manual"])
        #expect(page.status == 0)
        #expect(page.output.hasPrefix(".TH \"HANDOFF\" \"1\""))
        #expect(page.output.contains(".SS \"handoff note edit\""))
        #expect(page.output.contains(".SH EXIT STATUS"))
    }
}
