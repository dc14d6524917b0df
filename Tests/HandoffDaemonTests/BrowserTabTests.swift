import Foundation
import HandoffClient
import Testing

/// The browser tab, in the real browser: Debian's Chromium, headless, with the extension of integrations/browser
/// loaded and its native host (the shipped manifest and wrapper, running the built `handoff browser-host`) on the
/// laptop's daemon. The desktop's daemon sees the tab offered, and `handoff continue` there opens it (xdg-open
/// replaced by a recorder, as in DesktopKindsThroughTheCLITests).
@Suite(.serialized) struct BrowserTabTests {
    /// A scratch folder: pages to serve, the browser's profile with the host manifest, the host's wrapper.
    struct Setup {
        let folder: String
        let profile: String
        let extensionFolder: String

        init(handoff: String, name: String) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "handoff-browser-\(name)-\(UUID().uuidString)").path
            profile = folder + "/profile"
            extensionFolder = RealPrograms.repository + "/integrations/browser/extension"
            let hosts = profile + "/NativeMessagingHosts"
            try FileManager.default.createDirectory(atPath: hosts, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
            for (file, title) in [("page", "Handoff test page"), ("second", "Second page"),
                                  ("private", "Private page"), ("file", "Local file")] {
                try "<!doctype html><title>\(title)</title><p>\(title)</p>\n"
                    .write(toFile: folder + "/www/\(file).html", atomically: true, encoding: .utf8)
            }
            // The shipped wrapper and Chromium manifest, with the built binary and the wrapper's path put in
            // (scripts/deb/build-deb.sh puts /usr/bin/handoff and /usr/libexec/handoff/browser-host).
            let shipped = RealPrograms.repository + "/integrations/browser/native-host"
            let wrapper = folder + "/browser-host"
            try String(contentsOfFile: shipped + "/handoff-browser-host", encoding: .utf8)
                .replacingOccurrences(of: "@HANDOFF@", with: handoff)
                .write(toFile: wrapper, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
            try String(contentsOfFile: shipped + "/chromium/org.handoff.browser.json", encoding: .utf8)
                .replacingOccurrences(of: "@HOST@", with: wrapper)
                .write(toFile: hosts + "/org.handoff.browser.json", atomically: true, encoding: .utf8)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Chromium through chromedriver with the extension, its native host reaching the daemon at `busAddress`, and a
    /// web server on 127.0.0.1 serving the setup's pages; `body` gets the session and the server's base URL.
    func withBrowser(_ setup: Setup, busAddress: String, incognito: Bool = false,
                     _ body: (WebDriver, String) async throws -> Void) async throws {
        let chromium = try RealPrograms.path(of: "chromium")
        let chromedriver = try RealPrograms.path(of: "chromedriver")
        let python = try RealPrograms.path(of: "python3")
        let webPort = try RealPrograms.freePort(), driverPort = try RealPrograms.freePort()
        let server = try RealPrograms.start(python, ["-m", "http.server", "--bind", "127.0.0.1", String(webPort),
                                                     "--directory", setup.folder + "/www"])
        defer { RealPrograms.stop(server) }
        // The browser, and so the native host, inherit chromedriver's environment.
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = setup.folder
        environment["HANDOFF_BUS_ADDRESS"] = busAddress
        let driver = try RealPrograms.start(chromedriver, ["--port=\(driverPort)"], environment: environment)
        defer { RealPrograms.stop(driver) }
        var arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--user-data-dir=" + setup.profile, "--load-extension=" + setup.extensionFolder,
                         "--disable-extensions-except=" + setup.extensionFolder]
        if incognito { arguments.append("--incognito") }
        let base = "http://127.0.0.1:\(webPort)"
        let served = try await RealPrograms.eventually(seconds: 10) {
            (try? await LocalHTTP.request(port: webPort, method: "GET", path: "/page.html", timeout: 2))?.status == 200
        }
        #expect(served, "the web server did not start")
        let session = try await WebDriver.session(
            port: driverPort,
            capabilities: ["goog:chromeOptions": ["binary": chromium, "args": arguments]])
        do {
            try await body(session, base)
        } catch {
            await session.quit()
            throw error
        }
        await session.quit()
    }

    /// The web page the laptop offers now, as (title, URL), if any: the laptop's own status, since a beacon carries
    /// no title (the desktop's list names only the type until the page is continued).
    func laptopOffer(_ laptop: any HandoffService) async throws -> String? {
        guard let current = try await laptop.status().currentActivity, current.type == "org.handoff.web" else {
            return nil
        }
        return current.title
    }

    /// How many web pages the desktop lists.
    func desktopWebPages(_ desktop: any HandoffService) async throws -> Int {
        try await desktop.availableActivities().filter { $0.type == "org.handoff.web" }.count
    }

    @Test func theFocusedTabIsOfferedAndOpensOnTheOtherMachineAndAFileTabIsWithdrawn() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        var desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        let setup = try Setup(handoff: desktop.executable, name: "tab")
        defer { desktop.remove(); setup.remove() }
        let record = try Self.recordOpenedLinks(for: &desktop)
        let client = try await machines.desktop.client(), laptop = try await machines.laptop.client()
        let seen = Recorder<String>()

        try await withBrowser(setup, busAddress: machines.laptop.bus.address) { browser, base in
            try await browser.navigate(to: base + "/page.html")
            let offered = try await RealPrograms.eventually {
                let title = try await laptopOffer(laptop)
                title.map { seen.append($0) }
                let listed = try await desktopWebPages(client)
                return title == "Handoff test page" && listed == 1
            }
            let title = try await laptopOffer(laptop)
            #expect(offered, "the focused tab was not offered: the laptop offers \(String(describing: title))")

            let continued = try await desktop.run(["continue", "--type", "org.handoff.web"])
            #expect(continued.status == 0, "\(continued.error)")
            #expect(continued.error.contains("web page from laptop opened: \(base)/page.html"), "\(continued.error)")
            #expect((try? String(contentsOfFile: record, encoding: .utf8)) == base + "/page.html\n")

            // A file: tab is not offered, and what was offered is withdrawn.
            try await browser.navigate(to: "file://" + setup.folder + "/www/file.html")
            let withdrawn = try await RealPrograms.eventually {
                let title = try await laptopOffer(laptop)
                title.map { seen.append($0) }
                return title == nil
            }
            #expect(withdrawn, "the web page stayed offered after a file: tab took focus")

            try await browser.navigate(to: base + "/second.html")
            #expect(try await RealPrograms.eventually { try await laptopOffer(laptop) == "Second page" })
        }
        #expect(!seen.all.contains { $0.contains("Local file") || $0.contains("file:") || $0.contains("file.html") },
                "\(seen.all)")
    }

    @Test func aPrivateWindowIsNeverOffered() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        let setup = try Setup(handoff: desktop.executable, name: "private")
        defer { desktop.remove(); setup.remove() }
        let client = try await machines.desktop.client(), laptop = try await machines.laptop.client()

        try await withBrowser(setup, busAddress: machines.laptop.bus.address, incognito: true) { browser, base in
            try await browser.navigate(to: base + "/private.html")
            let title = try await browser.request("GET", "/session/\(browser.session)/title") as? String
            #expect(title == "Private page", "the private page did not load")
            // The extension runs (its service worker, in the normal profile), and the page is in another, private
            // one: what follows is the extension choosing not to offer it, not an extension that never started.
            let targets = try await browser.devTools("Target.getTargets")["targetInfos"] as? [[String: Any]] ?? []
            let worker = targets.first {
                $0["type"] as? String == "service_worker"
                    && ($0["url"] as? String)?.hasPrefix("chrome-extension://cecbnhjfopncempjaelamclhabhiekei/") == true
            }
            let page = targets.first { $0["type"] as? String == "page" && $0["url"] as? String == base + "/private.html" }
            #expect(worker != nil, "the extension is not running: \(targets)")
            #expect(page != nil, "no private page: \(targets)")
            #expect(worker?["browserContextId"] as? String != page?["browserContextId"] as? String,
                    "the page is in the extension's own, normal profile")
            // The same page in a normal window is offered within a second (the test above); give the private one
            // three, and look all along, on both machines.
            let offered = try await RealPrograms.eventually(seconds: 3) {
                let offer = try await laptopOffer(laptop), listed = try await desktopWebPages(client)
                return offer != nil || listed > 0
            }
            let offer = try await laptopOffer(laptop)
            #expect(!offered, "a private window's tab was offered: \(String(describing: offer))")
        }
    }

    @Test func theNativeHostAnswersHostileInputWithAClearErrorAndOffersNothingUnsafe() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { laptop.remove() }
        let client = try await machines.desktop.client()
        func frame(_ json: String) -> String {
            var length = UInt32(json.utf8.count)
            return String(decoding: withUnsafeBytes(of: &length) { Data($0) }, as: UTF8.self) + json
        }
        let input = frame(#"{"type":"offer","url":"file:///etc/shadow","title":"x","incognito":false}"#)
            + frame(#"{"type":"offer","url":"https://example.org/private","title":"private","incognito":true}"#)
            + frame("{not json")
            + frame(#"{"type":"offer","url":"https://example.org/ok","title":"Fine page","incognito":false}"#)
            + "\u{7F}\u{7F}\u{7F}\u{7F}"   // a length of 2 GiB
        let result = try await laptop.run(["browser-host", "chrome-extension://cecbnhjfopncempjaelamclhabhiekei/"],
                                          input: input)
        #expect(result.status == 65)
        #expect(result.error.contains("the browser sent a message of 2139062143 bytes; at most 65536 are accepted"))
        let replies = Self.replies(result.outputData)
        #expect(replies.count == 5)
        #expect(replies.map { $0["ok"] as? Bool } == [false, false, false, true, false])
        #expect((replies.first?["error"] as? String)?.contains("only http and https") == true)
        #expect((replies.dropFirst().first?["error"] as? String) == "a private window's tab is never offered")
        let laptopClient = try await machines.laptop.client()
        #expect(try await RealPrograms.eventually {
            let offer = try await laptopOffer(laptopClient), listed = try await desktopWebPages(client)
            return offer == "Fine page" && listed == 1
        })
    }

    /// The framed JSON replies in `data`.
    static func replies(_ data: Data) -> [[String: Any]] {
        var bytes = [UInt8](data)
        var replies: [[String: Any]] = []
        while bytes.count >= 4 {
            let length = bytes.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            guard bytes.count >= 4 + Int(length) else { break }
            if let reply = try? JSONSerialization.jsonObject(with: Data(bytes[4..<4 + Int(length)])) as? [String: Any] {
                replies.append(reply)
            }
            bytes.removeFirst(4 + Int(length))
        }
        return replies
    }

    /// Makes `program`'s xdg-open hand http and https links to a script that appends them to a file, and returns
    /// that file.
    static func recordOpenedLinks(for program: inout HandoffProgram) throws -> String {
        let home = program.home.path
        let record = home + "/opened", handler = home + "/record-url"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(record)'\n".write(toFile: handler, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: handler)
        try FileManager.default.createDirectory(atPath: home + "/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Record\nExec=\(handler) %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\n"
            .write(toFile: home + "/applications/record-url.desktop", atomically: true, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/https=record-url.desktop\nx-scheme-handler/http=record-url.desktop\n"
            .write(toFile: home + "/.config/mimeapps.list", atomically: true, encoding: .utf8)
        program.extraEnvironment = ["DISPLAY": ":0", "XDG_DATA_DIRS": home]
        return record
    }
}
