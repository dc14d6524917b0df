import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff copy`: offer standard input, or the desktop clipboard, to the other machines for two minutes.
enum CopyCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "copy",
        abstract: "Offer what you copy to your nearby devices for two minutes: standard input or the clipboard (daemon).",
        discussion: """
            Reads standard input, or the desktop clipboard when standard input is a terminal (wl-paste on \
            Wayland, xclip on X11), and offers it as an org.handoff.clipboard activity: UTF-8 text as text/plain, \
            a PNG image as image/png. Like Universal Clipboard it expires two minutes later; on the other machine \
            'handoff paste' takes it. A secret a password manager marked (x-kde-passwordManagerHint) is never \
            offered. Exits 7 when there is no clipboard or nothing on it that handoff carries.
            """,
        examples: [
            Example("echo 'ssh build-01' | handoff copy", "Offer a line of text."),
            Example("handoff copy", "Offer what is on the desktop clipboard now."),
        ])

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        let item: ClipboardItem
        if context.terminal.inputIsTerminal {
            item = try await DesktopClipboard(environment: context.environment).read()
        } else {
            item = try ClipboardItem.sniffing(try context.terminal.readInput())
        }
        _ = try await context.service().setCurrentActivity(item.activity)
        context.terminal.note("offered \(item.title.lowercased()) for 2 minutes; 'handoff paste' takes it")
        return .success
    }
}
