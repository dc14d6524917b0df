import Foundation
import HandoffClient
import HandoffDesktop
import Testing

@Suite struct WebLinkTests {
    @Test func httpAndHttpsAreOpenable() throws {
        #expect(try WebLink("https://www.kernel.org/doc/").isOpenable)
        #expect(try WebLink("HTTP://example.org").isOpenable)
        let activity = try WebLink("https://example.org/a?b=c#d").activity(title: "Example")
        #expect(activity.type == "org.handoff.web")
        #expect(activity.userInfo == ["url": "https://example.org/a?b=c#d"])
        #expect(activity.title == "Example")
    }

    @Test(arguments: ["javascript:alert(1)", "file:///etc/passwd", "ftp://example.org/x", "ssh://host",
                      "data:text/html,<script>", "https:///no-host"])
    func otherSchemesAreNeverOpened(_ text: String) async throws {
        let link = try WebLink(text)
        #expect(!link.isOpenable)
        // A PATH whose xdg-open would record any call: it must never be called.
        let scratch = try Scratch()
        try scratch.write("bin/xdg-open", "#!/bin/sh\necho \"$@\" >> \(scratch.path)/opened\n", executable: true)
        let opener = LinkOpener(environment: ["PATH": scratch.path + "/bin"])
        await #expect(throws: DesktopError.self) { try await opener.open(link) }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/opened"))
    }

    @Test(arguments: ["https://example.org/\u{1B}[2J", "https://example.org/a\nb", "https://exa mple.org/",
                      "not a url", "/relative/path", ""])
    func controlCharactersSpacesAndRelativeURLsAreRefused(_ text: String) {
        #expect(throws: DesktopError.self) { try WebLink(text) }
    }

    @Test func aHostileURLReachesXdgOpenAsOneArgument() async throws {
        let scratch = try Scratch()
        try scratch.write("bin/xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$1\" > \(scratch.path)/opened\n",
                          executable: true)
        let url = "https://example.org/?q=$(touch%20pwned);rm&x='a'`id`"
        try await LinkOpener(environment: ["PATH": scratch.path + "/bin"]).open(try WebLink(url))
        #expect(try String(contentsOfFile: scratch.path + "/opened", encoding: .utf8) == "1\n\(url)\n")
        #expect(!FileManager.default.fileExists(atPath: "pwned"))
    }

    @Test func aLinkFromAnotherDeviceWithoutURLIsRefused() {
        #expect(throws: DesktopError.self) {
            try WebLink(ActivityContent(type: "org.handoff.web", title: "t", userInfo: [:]))
        }
    }
}
