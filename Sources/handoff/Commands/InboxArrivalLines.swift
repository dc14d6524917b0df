import HandoffClient

/// The `handoff watch` lines for items arriving in the inbox: `received: laptop sent report.pdf (1.2 MB)`.
enum InboxArrivalLines {
    struct Event: Encodable {
        let event = "received"
        let item: InboxEntry
    }

    static func print(_ service: any HandoffService, context: CommandContext, json: Bool) async throws {
        guard let sharing = service as? any SharingService else { return }
        for await item in try await sharing.inboxArrivals() {
            if json {
                context.terminal.outRaw(try JSONOutput.line(Event(item: item)))
            } else {
                context.terminal.out("received: \(ActivitySummary.printable(item.sender)) sent \(ActivitySummary.printable(item.name)) "
                    + "(\(ShareCommand.byteString(item.sizeBytes)))\n")
            }
        }
    }
}
