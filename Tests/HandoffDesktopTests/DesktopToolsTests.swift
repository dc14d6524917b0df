import Foundation
import HandoffClient
import HandoffDesktop
import HandoffShared
import Testing

/// The clipboard through the real tools on real (headless) desktops: xclip on Xvfb, wl-clipboard on sway.
@Suite(.serialized) struct DesktopToolsTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<600).map { UInt8($0 % 251) })

    func roundTrip(on desktop: HeadlessDesktop) async throws {
        let clipboard = try DesktopClipboard(environment: desktop.environment)
        let text = ClipboardItem.text("grüße — it's $HOME `id`\nline 2")
        try await clipboard.write(text)
        #expect(try await clipboard.read() == text)
        let image = ClipboardItem(mediaType: .png, data: Self.png)
        try await clipboard.write(image)
        #expect(try await clipboard.types().contains("image/png"))
        #expect(try await clipboard.read() == image)
    }

    /// Another program copies through the tool's own command line; the watcher reports each copy, the secret
    /// is recognised by its type.
    func watch(on desktop: HeadlessDesktop, copy: (String, String) async throws -> Void) async throws {
        let clipboard = try DesktopClipboard(environment: desktop.environment)
        let changes = ClipboardWatcher(clipboard: clipboard).changes()
        let seen = Locked<[[String]]>([])
        let reader = Task {
            for try await _ in changes {
                let types = try await clipboard.types()
                seen.withLock { $0.append(types) }
            }
        }
        defer { reader.cancel() }
        try await Task.sleep(for: .milliseconds(500))   // let the watcher attach before the first copy
        try await copy("text/plain", "first")
        #expect(await eventually { seen.withLock { $0.contains { $0.contains("text/plain") || $0.contains("UTF8_STRING") } } })
        try await copy("x-kde-passwordManagerHint", "secret")
        #expect(await eventually { seen.withLock { $0.contains { DesktopClipboard.isSensitive($0) } } })
    }

    @Test func x11ThroughXclip() async throws {
        let desktop = try await HeadlessDesktop.xvfb()
        let clipboard = try DesktopClipboard(environment: desktop.environment)
        #expect(clipboard.name == "X11 (xclip)")
        try await roundTrip(on: desktop)
        try await watch(on: desktop) { type, text async throws in
            let (_, status) = try await shell("printf %s '\(text)' | xclip -selection clipboard -i -t '\(type)' >/dev/null 2>&1",
                                        environment: desktop.environment)
            #expect(status == 0)
        }
    }

    /// Issue 25 §9: a password manager copies a secret between the read of the types and the read of the text.
    /// The real xclip on Xvfb, behind a wrapper that, on the first read of the text, lets the password manager
    /// copy first (the secret, marked with its hint) and gives what the clipboard then held as text. Armed once
    /// the ordinary copy is on the clipboard.
    @Test func aSecretCopiedWhileTheClipboardIsReadIsNotOffered() async throws {
        let desktop = try await HeadlessDesktop.xvfb()
        let scratch = try Scratch()
        try scratch.write("bin/xclip", """
            #!/bin/sh
            case "$*" in *"-o -t UTF8_STRING"*)
                if [ -e '\(scratch.path)/armed' ] && [ ! -e '\(scratch.path)/copied' ]; then
                    : > '\(scratch.path)/copied'
                    printf hunter2 | /usr/bin/xclip -selection clipboard -i -t \(DesktopClipboard.passwordManagerHint) \\
                        >/dev/null 2>&1
                    i=0; until /usr/bin/xclip -selection clipboard -o -t TARGETS 2>/dev/null \\
                        | grep -q \(DesktopClipboard.passwordManagerHint) || [ $i -gt 200 ]; do i=$((i + 1)); done
                    printf hunter2; exit 0
                fi;;
            esac
            exec /usr/bin/xclip "$@"
            """, executable: true)
        var environment = desktop.environment
        environment["PATH"] = scratch.path + "/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        let clipboard = try DesktopClipboard(environment: environment)
        try await clipboard.write(.text("an ordinary copy"))
        try scratch.write("armed", "")
        let refusal = await #expect(throws: DesktopError.self) { try await clipboard.read() }
        #expect(refusal?.code == .nothingToCopy)
        #expect(refusal?.message.contains("secret") == true)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/copied"))
    }

    @Test func waylandThroughWlClipboard() async throws {
        let desktop = try await HeadlessDesktop.sway()
        let clipboard = try DesktopClipboard(environment: desktop.environment)
        #expect(clipboard.name == "Wayland (wl-clipboard)")
        try await roundTrip(on: desktop)
        try await watch(on: desktop) { type, text async throws in
            let (_, status) = try await shell("printf %s '\(text)' | wl-copy --type '\(type)' >/dev/null 2>&1", environment: desktop.environment)
            #expect(status == 0)
        }
    }

    @Test func anEmptyClipboardIsNothingToCopy() async throws {
        let desktop = try await HeadlessDesktop.xvfb()
        await #expect(throws: DesktopError(.nothingToCopy, "the clipboard is empty")) {
            try await DesktopClipboard(environment: desktop.environment).read()
        }
    }

    /// The real xdg-open, with no desktop environment detected, asks xdg-mime for the x-scheme-handler/https
    /// application: a .desktop file in XDG_DATA_HOME that records the URL it is given.
    @Test func xdgOpenRunsTheUsersHttpsHandler() async throws {
        let scratch = try Scratch()
        let record = scratch.path + "/opened"
        let handler = try scratch.write("bin/record-url", "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(record)'\n",
                                        executable: true)
        try scratch.write("data/applications/record-url.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Record URL
            Exec=\(handler) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;
            """)
        try scratch.write("config/mimeapps.list", """
            [Default Applications]
            x-scheme-handler/https=record-url.desktop
            x-scheme-handler/http=record-url.desktop
            """)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": scratch.path, "DISPLAY": ":0",
                           "XDG_DATA_HOME": scratch.path + "/data", "XDG_CONFIG_HOME": scratch.path + "/config",
                           "XDG_DATA_DIRS": scratch.path + "/data"]
        let url = "https://example.org/a?q=1&r=$(id)"
        try await LinkOpener(environment: environment).open(try WebLink(url))
        #expect(await eventually { (try? String(contentsOfFile: record, encoding: .utf8)) == url + "\n" })
    }
}
