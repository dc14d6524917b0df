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
            Runs until interrupted. It starts with a line for each activity available now, then prints each \
            change. Each line reads 'available: TITLE (TYPE) from DEVICE' or \
            'gone: TITLE (TYPE) from DEVICE', followed by ', app APP' when an app on this machine declared the \
            type (the app that will continue it), and 'received: DEVICE sent NAME (SIZE)' when an item arrives in \
            the inbox. With --json each line is one JSON object (JSON Lines).
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await context.service()
        let arrivals = Task { try await InboxArrivalLines.print(service, context: context, json: invocation[\.json]) }
        defer { arrivals.cancel() }
        // Signals first, then the list: an activity appearing in between is in both, and shown once.
        let events = try await service.activityEvents()
        var watch = ActivityWatch()
        var apps = try await (service as? any ActivityAppNaming)?.activityApps() ?? [:]
        for event in watch.start(with: try await service.availableActivities()) {
            try print(event, app: apps[event.activity.type], json: invocation[\.json], context: context)
        }
        for try await event in events {
            guard let event = watch.admit(event) else { continue }
            // A type declared since the watch began (an app started) is named too.
            if apps[event.activity.type] == nil, let naming = service as? any ActivityAppNaming {
                apps = (try? await naming.activityApps()) ?? apps
            }
            try print(event, app: apps[event.activity.type], json: invocation[\.json], context: context)
        }
        return .success
    }

    /// One line: `available: …` or `gone: …`, or with `--json` the event as one JSON object.
    private static func print(_ event: ActivityEvent, app: String?, json: Bool, context: CommandContext) throws {
        if json {
            context.terminal.outRaw(try JSONOutput.line(event))
            return
        }
        let verb = event.event == .appeared ? "available" : "gone"
        let activity = event.activity
        // A beacon carries no title (it is private), so an activity not yet continued has none.
        let what = ActivitySummary.printable(
            activity.title.isEmpty ? activity.type : "\(activity.title) (\(activity.type))")
        // Clipboard, web page and terminal read as the kind: "available: clipboard from laptop".
        context.terminal.out("\(verb): "
            + (activity.kindLine ?? "\(what) from \(ActivitySummary.printable(activity.device))")
            + (app.map { ", app " + ActivitySummary.printable($0) } ?? "") + "\n")
    }
}
