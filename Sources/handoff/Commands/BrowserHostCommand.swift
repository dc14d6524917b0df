import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff browser-host`: the native messaging host of the handoff WebExtension (integrations/browser/).
enum BrowserHostCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let caller = Argument<String>(
            "caller", help: "What the browser passes: Chromium the extension's origin, Firefox the manifest's path "
                + "and the extension's id. Not used: the host manifest already names the one extension allowed.",
            optional: true, repeating: true)
    }

    static let configuration = CommandConfiguration(
        name: "browser-host",
        abstract: "The browser extension's native messaging host: offers the focused tab (started by the browser).",
        discussion: """
            The browser starts it through the host manifest org.handoff.browser.json and speaks the native \
            messaging protocol on standard input and output: a 32-bit length in native byte order, then UTF-8 \
            JSON. {"type": "offer", "url": …, "title": …, "incognito": false} offers the tab as org.handoff.web; \
            {"type": "withdraw"} stops offering it. A tab of a private window, or a URL other than http or \
            https, is refused here too, whatever the extension says. Every message gets a reply: {"ok": true, \
            …} or {"ok": false, "error": "…"}. A message longer than 64 KiB ends the host (exit 65): the \
            stream cannot be read past it.
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let reader = NativeMessaging.Reader(fd: 0)
        var host = BrowserHost(context: context)
        while true {
            let message: Data?
            do {
                message = try await reader.next()
            } catch {
                host.reply(["ok": false, "error": error.message])
                throw error
            }
            guard let message else { return .success }
            await host.handle(message)
        }
    }
}

/// The host's state: the daemon connection, made on the first offer, and what it offers now.
private struct BrowserHost {
    let context: CommandContext
    var service: (any HandoffService)?
    var offered: (id: ActivityID, content: ActivityContent)?

    init(context: CommandContext) {
        self.context = context
    }

    mutating func handle(_ json: Data) async {
        do {
            let message = try BrowserTabMessage(json: json)
            guard let activity = try message.activity() else {
                if let offered {
                    try await connected().resignCurrentActivity(offered.id, after: .zero)
                    self.offered = nil
                }
                reply(["ok": true, "withdrawn": true])
                return
            }
            if offered?.content != activity {
                let id = try await connected().setCurrentActivity(activity)
                offered = (id, activity)
            }
            reply(["ok": true, "offered": activity.userInfo[WebLink.Key.url] ?? ""])
        } catch let error as DesktopError {
            reply(["ok": false, "error": error.message])
        } catch {
            // The daemon went away: connect again for the next message.
            service = nil
            reply(["ok": false, "error": Handoff.describe(error).1])
        }
    }

    mutating func connected() async throws -> any HandoffService {
        if let service { return service }
        let made = try await context.service()
        service = made
        return made
    }

    func reply(_ object: [String: Any]) {
        guard let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let framed = try? NativeMessaging.frame(json) else { return }
        context.terminal.outData(framed)
    }
}
