import Foundation
import HandoffClient
import HandoffDesktop
import Testing

@Suite struct CloneFinderTests {
    @Test func aCloneIsFoundByItsRemoteWhicheverWayItIsWritten() throws {
        let scratch = try Scratch()
        try scratch.clone("src/github.com/acme/handoff", remotes: ["origin": "https://github.com/acme/handoff.git"])
        try scratch.clone("src/other", remotes: ["origin": "git@github.com:acme/other.git"])
        try scratch.clone("code/fork", remotes: ["origin": "git@github.com:me/handoff.git",
                                                 "upstream": "git@github.com:acme/handoff"])
        let finder = CloneFinder(roots: [scratch.path + "/src", scratch.path + "/code"])
        let clones = finder.clones(of: try #require(GitRemote("git@github.com:acme/handoff.git")))
        #expect(clones.map(\.path) == [scratch.path + "/src/github.com/acme/handoff", scratch.path + "/code/fork"])
    }

    @Test func theSearchIsBoundedAndSkipsHiddenFolders() throws {
        let scratch = try Scratch()
        try scratch.clone("a/b/c/d/deep", remotes: ["origin": "git@h:x/deep"])
        try scratch.clone(".cache/hidden", remotes: ["origin": "git@h:x/hidden"])
        let finder = CloneFinder(roots: [scratch.path])
        #expect(finder.clones(of: try #require(GitRemote("git@h:x/deep"))).isEmpty)
        #expect(finder.clones(of: try #require(GitRemote("git@h:x/hidden"))).isEmpty)
    }

    @Test func theFoldersComeFromHANDOFF_CLONESOrTheDefaults() {
        #expect(CloneFinder(environment: ["HANDOFF_CLONES": "/a:/b", "HOME": "/h"]).roots == ["/a", "/b"])
        #expect(CloneFinder(environment: ["HOME": "/h"]).roots.first == "/h/src")
        #expect(CloneFinder(environment: ["HOME": "/h"]).roots.last == "/h")
    }

    @Test func remotesAreReadFromGitConfig() {
        let config = """
            [core]
            \tbare = false
            [remote "origin"]
            \turl = git@github.com:acme/handoff.git
            [branch "main"]
            \tremote = origin
            [remote "fork"]
            \turl = "https://github.com/me/handoff"
            """
        let remotes = CloneFinder.remotes(inGitConfig: config)
        #expect(remotes.mapValues(\.key) == ["origin": "github.com/acme/handoff", "fork": "github.com/me/handoff"])
    }
}

@Suite struct TerminalPlanTests {
    func state(branch: String? = "feature/login", path: String = "Sources/Kit", command: String? = "make test",
               remote: String = "git@github.com:acme/handoff.git") -> TerminalState {
        TerminalState(directory: "/home/me/src/handoff/Sources/Kit",
                      repository: .init(remote: GitRemote(remote)!, branch: branch, path: path),
                      lastCommand: command)
    }

    @Test func theSameRepositoryPathBranchAndCommand() throws {
        let scratch = try Scratch()
        try scratch.clone("src/handoff", remotes: ["origin": "https://github.com/acme/handoff"])
        try scratch.write("src/handoff/Sources/Kit/a.swift", "")
        let plan = TerminalPlan(for: state(), finder: CloneFinder(roots: [scratch.path + "/src"])) { _ in "main" }
        #expect(plan.directory == scratch.path + "/src/handoff/Sources/Kit")
        #expect(plan.branch == "feature/login")
        #expect(plan.checkoutCommand == "git -C '\(scratch.path)/src/handoff' switch -- 'feature/login'")
        #expect(plan.command == "make test")
        #expect(plan.refusals.isEmpty)
    }

    /// Issue 25 §3, with the real git: the other machine is on a branch named `docs`; here `docs` is no branch
    /// but a folder with uncommitted edits. Checking out the branch, as shown or as run, must not touch them.
    @Test func aBranchThatNamesAFolderHereNeverRestoresThatFolder() async throws {
        let scratch = try Scratch()
        let repo = scratch.path + "/handoff"
        let (_, status) = try await shell("""
            set -e; git init -q -b main '\(repo)'; cd '\(repo)'
            git remote add origin https://github.com/acme/handoff.git
            mkdir docs; echo committed > docs/guide.md; git add docs
            git -c user.name=t -c user.email=t@t commit -q -m docs; git branch feature
            echo 'my unsaved work' > docs/guide.md
            """)
        try #require(status == 0)
        let plan = TerminalPlan(for: state(branch: "docs", path: ""), finder: CloneFinder(roots: [scratch.path])) {
            _ in "main"
        }
        let shown = try #require(plan.checkoutCommand)
        let (_, pasted) = try await shell(shown + " 2>/dev/null")
        #expect(pasted != 0)
        #expect(try String(contentsOfFile: repo + "/docs/guide.md", encoding: .utf8) == "my unsaved work\n")
        let git = try #require(Tool.find("git", in: ProcessInfo.processInfo.environment))
        let run = try await git.run(try #require(plan.checkoutArguments), environment: [:])
        #expect(run.status != 0)
        #expect(try String(contentsOfFile: repo + "/docs/guide.md", encoding: .utf8) == "my unsaved work\n")
        // A real branch still switches, and the edits come along.
        let feature = TerminalPlan(for: state(branch: "feature", path: ""), finder: CloneFinder(roots: [scratch.path])) {
            _ in "main"
        }
        #expect(try await git.run(try #require(feature.checkoutArguments), environment: [:]).status == 0)
        #expect(try String(contentsOfFile: repo + "/.git/HEAD", encoding: .utf8) == "ref: refs/heads/feature\n")
        #expect(try String(contentsOfFile: repo + "/docs/guide.md", encoding: .utf8) == "my unsaved work\n")
    }

    @Test func noCheckoutIsOfferedWhenTheBranchIsAlreadyOutAndAMissingPathFallsBackToTheTop() throws {
        let scratch = try Scratch()
        try scratch.clone("src/handoff", remotes: ["origin": "https://github.com/acme/handoff"])
        let plan = TerminalPlan(for: state(), finder: CloneFinder(roots: [scratch.path + "/src"])) { _ in
            "feature/login"
        }
        #expect(plan.branch == nil)
        #expect(plan.directory == scratch.path + "/src/handoff")
    }

    @Test func noCloneSaysWhereItLookedAndHowToClone() throws {
        let scratch = try Scratch()
        let plan = TerminalPlan(for: state(), finder: CloneFinder(roots: [scratch.path]))
        #expect(plan.place == .noClone(remote: GitRemote("git@github.com:acme/handoff.git")!, searched: [scratch.path]))
        #expect(plan.cloneCommand == "git clone -- 'git@github.com:acme/handoff.git' && cd 'handoff'")
        #expect(plan.directory == nil)
    }

    @Test(arguments: ["x; rm -rf ~", "$(touch pwned)", "-f", "--orphan=x", "a..b", "x\u{1B}[2J", "a b", "a:b", "x~1"])
    func aHostileBranchIsNeverOffered(_ branch: String) throws {
        let scratch = try Scratch()
        try scratch.clone("handoff", remotes: ["origin": "git@github.com:acme/handoff.git"])
        let plan = TerminalPlan(for: state(branch: branch), finder: CloneFinder(roots: [scratch.path]))
        #expect(plan.branch == nil)
        #expect(plan.checkoutCommand == nil)
        #expect(plan.refusals.count == 1)
    }

    @Test func aBranchGitAcceptsButAShellWouldNotIsOfferedQuoted() throws {
        let scratch = try Scratch()
        try scratch.clone("handoff", remotes: ["origin": "git@github.com:acme/handoff.git"])
        let plan = TerminalPlan(for: state(branch: "`id`$x'y"), finder: CloneFinder(roots: [scratch.path]))
        #expect(plan.checkoutCommand == "git -C '\(scratch.path)/handoff' switch -- '`id`$x'\\''y'")
    }

    @Test func aPathOutOfTheRepositoryIsRefused() throws {
        let scratch = try Scratch()
        try scratch.clone("handoff", remotes: ["origin": "git@github.com:acme/handoff.git"])
        let plan = TerminalPlan(for: state(path: "../../etc"), finder: CloneFinder(roots: [scratch.path]))
        #expect(plan.directory == scratch.path + "/handoff")
        #expect(plan.refusals.count == 1)
    }

    @Test func aCommandWithControlCharactersIsNotOffered() throws {
        let plan = TerminalPlan(for: state(command: "ls\n rm -rf ~"), finder: CloneFinder(roots: []))
        #expect(plan.command == nil)
        #expect(plan.refusals == ["the last command holds control characters; it is not offered: ls\\u{A} rm -rf ~"])
    }

    /// The script `continue --shell-file` writes, sourced by a real bash and zsh: the directory changes, the
    /// hostile command lands in the history exactly, and nothing in it ran.
    @Test(arguments: ["/bin/bash", "/usr/bin/zsh"])
    func theShellScriptQuotesEverythingFromTheOtherDevice(_ shellPath: String) async throws {
        let scratch = try Scratch()
        let folder = "it's $(touch pwned-dir) `id`"
        try scratch.clone(folder, remotes: ["origin": "git@github.com:acme/handoff.git"])
        // Backslashes too: zsh's `print -s` without -r made `\n` a newline and stopped at `\c` (issue 25 §9).
        let hostile = "echo '$(touch pwned)'; touch \"pwned2\" `touch pwned3` $HOME 'it''s' printf 'a\\nb\\tc\\\\' \\c d"
        let plan = TerminalPlan(for: state(path: "", command: hostile), finder: CloneFinder(roots: [scratch.path]))
        let script = try scratch.write("continue.sh", plan.shellScript)
        let setup = shellPath.hasSuffix("zsh") ? "" : "set -o history; "
        let (output, status) = try await shell(
            setup + ". '\(script)'; pwd; fc -ln -1 | sed 's/^[[:space:]]*//'", program: shellPath,
            environment: ["HISTFILE": scratch.path + "/history"])
        #expect(status == 0)
        #expect(output == scratch.path + "/" + folder + "\n" + hostile + "\n")
        for name in ["pwned", "pwned2", "pwned3", "pwned-dir"] {
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/" + folder + "/" + name))
            #expect(!FileManager.default.fileExists(atPath: name))
        }
    }
}

@Suite struct TerminalStateTests {
    @Test func onlyAllowListedVariablesAreSent() {
        let environment = ["AWS_SECRET_ACCESS_KEY": "s", "VIRTUAL_ENV": "/v", "KUBECONFIG": "/k", "HOME": "/h"]
        #expect(TerminalState.allowListed(environment).isEmpty)
        var allowed = environment
        allowed["HANDOFF_TERMINAL_ENV"] = "VIRTUAL_ENV, KUBECONFIG MISSING"
        #expect(TerminalState.allowListed(allowed) == ["VIRTUAL_ENV": "/v", "KUBECONFIG": "/k"])
    }

    @Test func theActivityRoundTrips() throws {
        let state = TerminalState(
            directory: "/home/me/src/handoff/Docs",
            repository: .init(remote: GitRemote("git@github.com:acme/handoff.git")!, branch: "main", path: "Docs"),
            lastCommand: "make docs", environment: ["VIRTUAL_ENV": "/v"])
        let activity = state.activity
        #expect(activity.type == "org.handoff.terminal")
        #expect(activity.title == "handoff on main, in Docs")
        #expect(activity.userInfo["env.VIRTUAL_ENV"] == "/v")
        #expect(try TerminalState(activity) == state)
    }

    /// A real repository, read with the real git.
    @Test func theCurrentStateComesFromGit() async throws {
        let scratch = try Scratch()
        let repo = scratch.path + "/handoff"
        let (_, status) = try await shell("""
            set -e; git init -q -b topic '\(repo)'; cd '\(repo)'; mkdir -p Sources/Kit
            git remote add origin https://me:token@github.com/acme/handoff.git
            """)
        #expect(status == 0)
        let state = await TerminalState.current(
            directory: repo + "/Sources/Kit", command: "  swift build\n",
            environment: ["PATH": "/usr/bin:/bin", "SECRET": "x"])
        #expect(state.repository?.remote.key == "github.com/acme/handoff")
        #expect(state.repository?.remote.url == "https://me@github.com/acme/handoff.git")
        #expect(state.repository?.branch == "topic")
        #expect(state.repository?.path == "Sources/Kit")
        #expect(state.lastCommand == "swift build")
        #expect(state.environment.isEmpty)
        let outside = await TerminalState.current(directory: scratch.path, command: nil, environment: ["PATH": "/usr/bin:/bin"])
        #expect(outside.repository == nil)
    }
}

@Suite struct ShellHookTests {
    /// The hook in a real shell: a prompt with nothing changed starts nothing; a new directory or a new
    /// command starts one `handoff terminal offer` with them.
    @Test(arguments: [ShellHook.Shell.bash, .zsh])
    func theHookOffersOnlyWhenSomethingChanged(_ shell: ShellHook.Shell) async throws {
        let scratch = try Scratch()
        let recorder = try scratch.write("bin/handoff", """
            #!/bin/sh
            printf '%s|' "$@" >> '\(scratch.path)/calls'; echo >> '\(scratch.path)/calls'
            """, executable: true)
        let hook = try scratch.write("hook.sh", ShellHook.script(for: shell, program: recorder))
        try FileManager.default.createDirectory(atPath: scratch.path + "/next", withIntermediateDirectories: true)
        let prompt = shell == .bash ? "__handoff_prompt" : "__handoff_precmd"
        let script = """
            cd '\(scratch.path)'; . '\(hook)'
            \(prompt); \(prompt); \(prompt)
            cd next; \(prompt); \(prompt)
            """
        let program = shell == .bash ? "/bin/bash" : "/usr/bin/zsh"
        _ = try await HandoffDesktopTests.shell(script, program: program)
        let calls = scratch.path + "/calls"
        #expect(await eventually { (try? String(contentsOfFile: calls, encoding: .utf8))?.isEmpty == false })
        try await Task.sleep(for: .milliseconds(300))   // a second call, if any, would be in by now
        let lines = try String(contentsOfFile: calls, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("terminal|offer|--cwd|\(scratch.path)/next|--command|") == true)
    }

    /// Issue 25 §9: with HIST_IGNORE_SPACE, a line typed with a leading space stays out of zsh's history; the hook
    /// must not send it to the other machines either. A real interactive zsh, its input piped.
    @Test func zshDoesNotOfferALineItsHistoryIgnores() async throws {
        let scratch = try Scratch()
        let recorder = try scratch.write("bin/handoff", """
            #!/bin/sh
            printf '%s|' "$@" >> '\(scratch.path)/calls'; echo >> '\(scratch.path)/calls'
            """, executable: true)
        let hook = try scratch.write("hook.sh", ShellHook.script(for: .zsh, program: recorder))
        try FileManager.default.createDirectory(atPath: scratch.path + "/zdot", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/next", withIntermediateDirectories: true)
        let script = """
            printf 'setopt histignorespace\\n. %s\\ncd %s\\n export TOKEN=hunter2\\ncd next\\necho shown\\n' \\
                '\(hook)' '\(scratch.path)' | ZDOTDIR='\(scratch.path)/zdot' HISTFILE='\(scratch.path)/h' zsh -is
            """
        _ = try await shell(script)
        let calls = scratch.path + "/calls"
        // Each offer is a process of its own, started in the background: under load the one for `cd next` can
        // write after the one for `echo shown`, so both are awaited (waiting for the last alone failed 1 in 17).
        #expect(await eventually {
            let text = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
            return text.contains("--command|echo shown|") && text.contains("--command|cd next|")
        })
        try await Task.sleep(for: .milliseconds(300))   // any later offer would be in by now
        let text = try String(contentsOfFile: calls, encoding: .utf8)
        #expect(!text.contains("hunter2"))
    }
}
