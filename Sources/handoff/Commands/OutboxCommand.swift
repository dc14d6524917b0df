import HandoffClient
import HandoffCommandLine

/// `handoff outbox`: items on their way to another device; `list` (the default) and `cancel`.
enum OutboxCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "outbox",
        abstract: "List the items you shared and their state, or cancel one (daemon).",
        discussion: """
            An item is pending until its device is in range, sending while it moves, then delivered, or \
            failed with the reason (the other inbox is full, the item is too large, the device refused, or \
            24 hours passed). Delivered and failed items stay listed for 7 days.
            """)

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [OutboxListCommand.self, OutboxCancelCommand.self]
    }

    static var defaultSubcommand: (any CommandNode<CommandContext>.Type)? { OutboxListCommand.self }
}

/// `handoff outbox list`.
enum OutboxListCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print a JSON array of entries (id, device, name, kind, state, sentBytes, "
            + "totalBytes, ageSeconds, reason).")
    }

    static let configuration = CommandConfiguration(
        name: "list", abstract: "List outbox items, oldest first (the default).",
        discussion: "Each line reads 'ID  STATE  DEVICE  NAME  SENT/TOTAL', then the reason when there is one.")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let entries = try await ShareCommand.sharing(context).outbox()
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(entries))
            return .success
        }
        if entries.isEmpty { context.terminal.note("the outbox is empty") }
        for entry in entries {
            var line = "\(entry.id)  \(entry.state)  \(ActivitySummary.printable(entry.device))  \(ActivitySummary.printable(entry.name))  "
                + "\(ShareCommand.byteString(entry.sentBytes))/\(ShareCommand.byteString(entry.totalBytes))"
            if !entry.reason.isEmpty { line += "  (\(entry.reason))" }
            context.terminal.out(line + "\n")
        }
        return .success
    }
}

/// `handoff outbox cancel`.
enum OutboxCancelCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let id = Argument<String>(
            "id", help: "The item to cancel.",
            completion: .shellCommand("handoff outbox list --json | sed -n 's/.*\"id\" : \"\\(.*\\)\".*/\\1/p'"))
    }

    static let configuration = CommandConfiguration(
        name: "cancel", abstract: "Stop delivering an item that is not delivered yet.")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        try await ShareCommand.sharing(context).cancelOutboxItem(invocation[\.id] ?? "")
        return .success
    }
}
