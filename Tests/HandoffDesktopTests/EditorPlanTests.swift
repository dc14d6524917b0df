import Foundation
import HandoffClient
import HandoffDesktop
import Testing

@Suite struct EditorPlanTests {
    let remote = "git@github.com:acme/handoff.git"

    func place(_ path: String, sha256: String? = nil) throws -> EditorPlace {
        EditorPlace(remote: try #require(GitRemote(remote)), branch: "main", path: path, line: 3, column: 5,
                    sha256: sha256, modified: false)
    }

    @Test func thePlaceTravelsAsRemotePathAndPositionAndComesBackTheSame() throws {
        let sent = try place("Sources/Kit/File.swift", sha256: String(repeating: "ab", count: 32))
        let activity = sent.activity
        #expect(activity.type == "org.handoff.editor")
        #expect(activity.title == "handoff: Sources/Kit/File.swift:3")
        #expect(try EditorPlace(activity) == sent)
    }

    @Test func aPlaceWithoutAPositionOrWithABadDigestIsReadSafely() throws {
        var activity = try place("a.txt").activity
        activity.userInfo["sha256"] = "not hex"
        #expect(try EditorPlace(activity).sha256 == nil)
        activity.userInfo["line"] = "0"
        #expect(throws: DesktopError.self) { try EditorPlace(activity) }
    }

    @Test func theFileIsFoundInTheCloneOfTheSameRemoteAndComparedByDigest() throws {
        let scratch = try Scratch()
        try scratch.clone("code/handoff", remotes: ["origin": "https://github.com/acme/handoff"])
        let file = try scratch.write("code/handoff/Sources/main.swift", "print(1)\n")
        let finder = CloneFinder(roots: [scratch.path + "/code"])
        let digest = try #require(EditorPlan.sha256(ofFile: file))
        #expect(digest == "cc42155088fca5730758db72b2a5bca33112a941dfaa2d43098ec422ce4ea213")   // sha256sum

        let same = EditorPlan(for: try place("Sources/main.swift", sha256: digest), finder: finder)
        #expect(same.file == file)
        #expect(same.comparison == .same)
        let differs = EditorPlan(for: try place("Sources/main.swift", sha256: String(repeating: "0", count: 64)),
                                 finder: finder)
        #expect(differs.file == file)
        #expect(differs.comparison == .differs)
        #expect(EditorPlan(for: try place("Sources/main.swift"), finder: finder).comparison == .unknown)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "print(1)\n")
    }

    @Test func aPathThatIsNotPlainOrLeavesTheCloneIsRefused() throws {
        let scratch = try Scratch()
        try scratch.clone("code/handoff", remotes: ["origin": remote])
        try scratch.write("secret", "key\n")
        try scratch.write("code/handoff/inside.txt", "ok\n")
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/code/handoff/escape",
                                                   withDestinationPath: scratch.path + "/secret")
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/code/handoff/out",
                                                   withDestinationPath: scratch.path)
        let finder = CloneFinder(roots: [scratch.path + "/code"])
        for path in ["../../secret", "/etc/passwd", "a/../inside.txt", "./inside.txt", "a//b", "", "x\u{1B}y",
                     "escape", "out/secret", "out/code/../secret"] {
            let plan = EditorPlan(for: try place(path), finder: finder)
            guard case .refused = plan.outcome else {
                Issue.record("'\(path)' was not refused: \(plan.outcome)")
                continue
            }
            #expect(plan.file == nil)
        }
        #expect(EditorPlan(for: try place("inside.txt"), finder: finder).file == scratch.path + "/code/handoff/inside.txt")
        guard case .missing = EditorPlan(for: try place("nothere.txt"), finder: finder).outcome else {
            Issue.record("a missing file is not reported missing")
            return
        }
        guard case .noClone = EditorPlan(for: try place("inside.txt"), finder: CloneFinder(roots: [scratch.path + "/none"])).outcome
        else {
            Issue.record("no clone is not reported")
            return
        }
    }

    @Test func theRunningNeovimIsToldThePathAsAStringNeverAsKeys() throws {
        let scratch = try Scratch()
        try scratch.clone("code/handoff", remotes: ["origin": remote])
        let file = try scratch.write("code/handoff/it's | x.txt", "a\n")
        let plan = EditorPlan(for: try place("it's | x.txt"), finder: CloneFinder(roots: [scratch.path + "/code"]))
        let quoted = file.replacingOccurrences(of: "'", with: "''")
        #expect(plan.remoteExpression
            == "execute('edit ' .. fnameescape('\(quoted)')) .. execute('call cursor(3, 5)')")
        #expect(plan.editorArguments(editor: "/usr/bin/nvim -p") == ["+call cursor(3, 5)", "--", file])
        #expect(plan.editorArguments(editor: "nano") == ["+3", file])
    }
}
