import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff paste`: the freshest clipboard another device offers, to standard output or the local clipboard.
enum PasteCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let from = Option<String>(
            "from", valueName: "device", help: "Only take a clipboard this device offers (its name).")
        let set = Flag("set", help: "Put it on the desktop clipboard instead of writing it to standard output.")
    }

    static let configuration = CommandConfiguration(
        name: "paste",
        abstract: "Paste what a nearby device copied in the last two minutes (daemon).",
        discussion: """
            Continues the freshest org.handoff.clipboard activity and writes it to standard output exactly as \
            copied (text, or the PNG image's bytes), or with --set puts it on the desktop clipboard (wl-copy on \
            Wayland, xclip on X11) for your usual paste. A copy older than two minutes has expired: exits 3, as \
            when there is none.
            """,
        examples: [
            Example("handoff paste", "Print what the other machine copied."),
            Example("handoff paste --set", "Put it on this machine's clipboard."),
        ])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        // Fail before the transfer when it could not be put anywhere.
        let clipboard = invocation[\.set] ? try DesktopClipboard(environment: context.environment) : nil
        let service = try await context.service()
        var available = try await service.availableActivities().filter { $0.type == ActivityKind.clipboard.type }
        if let device = invocation[\.from] { available = available.filter { $0.device == device } }
        let lifetime = Double(ClipboardItem.lifetime.components.seconds)
        guard let freshest = available.min(by: { $0.age < $1.age }) else {
            throw CLIError(.noActivity, "nothing was copied on a nearby device"
                + (invocation[\.from].map { " named '\($0)'" } ?? ""))
        }
        guard freshest.age < lifetime else {
            throw CLIError(.noActivity, "the last copy on '\(ActivitySummary.printable(freshest.device))' expired "
                + "\(Int(freshest.age - lifetime)) s ago (a copy lasts 2 minutes)")
        }
        let continued = try await service.continueActivity(freshest.id) { _ in }
        let item = try ClipboardItem(continued.content)
        if let clipboard {
            try await clipboard.write(item)
            PastedMark(environment: context.environment).record(item)
            context.terminal.note("\(item.title.lowercased()) from '\(ActivitySummary.printable(freshest.device))' "
                + "is on the clipboard (\(clipboard.name))")
        } else {
            context.terminal.outData(item.data)
        }
        return .success
    }
}
