import Foundation
import HandoffCommandLine
import Testing

@Suite struct BashCompletionTests {
    let script = BashCompletionGenerator().script(for: Fixture.root)

    /// Completes a partial command line in real bash and returns the candidates.
    func complete(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let driver = script + """
            COMP_WORDS=(\(quoted))
            COMP_CWORD=\(words.count - 1)
            _tool
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Shell.run("/bin/bash", script: driver)
        #expect(result.status == 0, "bash failed: \(result.error)")
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func scriptIsValidBash() throws {
        let result = try Shell.run("/bin/bash", script: script, arguments: ["-n"])
        #expect(result.status == 0, "\(result.error)")
    }

    @Test func completesSubcommandsAtEachLevel() throws {
        #expect(try complete(["tool", ""]) == ["shapes", "status"])
        #expect(try complete(["tool", "sh"]) == ["shapes"])
        #expect(try complete(["tool", "shapes", "d"]) == ["draw"])
    }

    @Test func completesOptionsOfTheCurrentCommand() throws {
        #expect(try complete(["tool", "shapes", "draw", "--c"]) == ["--count"])
        #expect(try complete(["tool", "shapes", "list", "-"]) == ["-j", "--json", "-h", "--help"])
        #expect(try complete(["tool", "-"]) == ["-h", "--help", "--version"])
    }

    @Test func completesOptionValuesFromTheirKind() throws {
        #expect(try complete(["tool", "shapes", "draw", "--shape", ""]) == ["circle", "square"])
        #expect(try complete(["tool", "shapes", "draw", "--count", ""]) == [])
    }

    @Test func completesArgumentsByPositionSkippingOptionValues() throws {
        #expect(try complete(["tool", "shapes", "draw", "--count", "2", ""]) == ["alpha beta", "gamma"])
        #expect(try complete(["tool", "shapes", "draw", "-j", "g"]) == ["gamma"])
        #expect(try complete(["tool", "shapes", "draw", "paper", ""]) == [])
    }
}

@Suite struct ZshCompletionTests {
    let script = ZshCompletionGenerator().script(for: Fixture.root)

    @Test func scriptIsValidZsh() throws {
        let result = try Shell.run("/usr/bin/zsh", script: script, arguments: ["-n"])
        #expect(result.status == 0, "\(result.error)")
    }

    @Test func declaresOneFunctionPerCommandAndRegistersItself() {
        #expect(script.hasPrefix("#compdef tool\n"))
        for name in ["_tool()", "_tool_shapes()", "_tool_shapes_draw()", "_tool_shapes_list()", "_tool_status()"] {
            #expect(script.contains(name), "missing \(name)")
        }
        #expect(script.contains("compdef _tool tool"))
    }

    @Test func describesOptionsWithHelpValuesAndChoices() {
        #expect(script.contains("'(-c --count)'{-c,--count}'[How many]:n: '"))
        #expect(script.contains("'--shape[The shape to draw]:shape:(circle square)'"))
        #expect(script.contains("'--file[A file]:path:_files'"))
        #expect(script.contains("'*--tag[A tag; repeatable]:tag: '"))
        #expect(script.contains("'shapes:Work with shapes'"))
    }

    @Test func loadsInAnInteractiveCompletionSystem() throws {
        // Source the script after compinit, as a user would, and check that zsh registered it for `tool`.
        let driver = """
            autoload -Uz compinit && compinit -u -D
            source /dev/stdin <<'SCRIPT'
            \(script)
            SCRIPT
            print -r -- ${_comps[tool]}
            """
        let result = try Shell.run("/usr/bin/zsh", script: driver, arguments: ["-f"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "_tool")
    }
}

@Suite struct ManualPageTests {
    let page = ManualPageGenerator(date: "2026-11-29").page(for: Fixture.root)

    @Test func hasTheStandardSections() {
        #expect(page.hasPrefix(".TH \"TOOL\" \"1\" \"2026\\-11\\-29\" \"tool 1.2.3\" \"User Commands\"\n"))
        for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH COMMANDS",
                        ".SH \"EXIT STATUS\"", ".SH EXAMPLES"] where !section.contains("EXIT") {
            #expect(page.contains(section + "\n"), "missing \(section)")
        }
        #expect(page.contains(".SH EXIT STATUS\n"))
        #expect(page.contains(".SS \"tool shapes draw\"\n"))
        #expect(page.contains("\\fB\\-c, \\-\\-count\\fR \\fIn\\fR\nHow many. (default: 3)"))
    }

    @Test func rendersWithoutGroffWarnings() throws {
        let result = try Shell.run("/usr/bin/groff", script: page, arguments: ["-man", "-Tutf8", "-ww", "-z"])
        #expect(result.status == 0)
        #expect(result.error == "", "groff warned: \(result.error)")
    }
}
