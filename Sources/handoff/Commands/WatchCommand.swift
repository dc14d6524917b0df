import HandoffClient
import HandoffCommandLine

/// `handoff watch`: a line for each activity appearing or disappearing.
enum WatchCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print one JSON object per line: {\"event\":…,\"activity\":{…}}.")
    }

    static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Print a line whenever a nearby device starts or stops offering an activity (daemon).",
        discussion: """
            Runs until interrupted. Each line reads 'available: TITLE (TYPE) from DEVICE' or \
            'gone: TITLE (TYPE) from DEVICE', and 'received: DEVICE sent NAME (SIZE)' when an item arrives in \
            the inbox. With --json each line is one JSON object (JSON Lines).
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await context.service()
        let arrivals = Task { try await InboxArrivalLines.print(service, context: context, json: invocation[\.json]) }
        defer { arrivals.cancel() }
        let events = try await service.activityEvents()
        for try await event in events {
            if invocation[\.json] {
                context.terminal.outRaw(try JSONOutput.line(event))
            } else {
                let verb = event.event == .appeared ? "available" : "gone"
                let activity = event.activity
                // A beacon carries no title (it is private), so an activity not yet continued has none.
                let what = ActivitySummary.printable(activity.title.isEmpty ? activity.type : "\(activity.title) (\(activity.type))")
                // Clipboard, web page and terminal read as the kind: "available: clipboard from laptop".
                context.terminal.out("\(verb): " + (activity.kindLine ?? "\(what) from \(ActivitySummary.printable(activity.device))") + "\n")
            }
        }
        return .success
    }
}
