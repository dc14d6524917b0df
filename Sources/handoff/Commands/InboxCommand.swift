import Foundation
import HandoffClient
import HandoffCommandLine

/// `handoff inbox`: what your other devices sent here; `list` (the default), `take`, `drop`.
enum InboxCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "inbox",
        abstract: "List, take out and drop the items your other devices shared with this one (daemon).",
        discussion: """
            Items arrive only from paired devices, are kept by the daemon (up to 8 GB in all by default) and are never \
            opened or run by themselves. 'handoff inbox' lists them; 'handoff inbox take' moves them out.
            """)

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [InboxListCommand.self, InboxTakeCommand.self, InboxDropCommand.self]
    }

    static var defaultSubcommand: (any CommandNode<CommandContext>.Type)? { InboxListCommand.self }

    /// Completion for item ids.
    static let idCompletion = CompletionKind.shellCommand("handoff inbox list --ids")
}

/// `handoff inbox list`.
enum InboxListCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print a JSON array of items (id, sender, name, kind, mediaType, sizeBytes, "
            + "ageSeconds, originalName).")
        let ids = Flag("ids", help: "Print only the ids, one per line.")
        let partial = Flag("partial", help: "List the pushes still arriving instead (id, sender, name, receivedBytes, "
            + "announcedBytes, ageSeconds, expiresInSeconds in JSON).")
    }

    static let configuration = CommandConfiguration(
        name: "list", abstract: "List the items waiting in the inbox, oldest first (the default).",
        discussion: "Each line reads 'ID  SENDER  NAME  SIZE  AGE'. The name is the one the item will get when taken "
            + "(made safe); the name the sender gave is in the JSON as originalName. With --partial each line reads "
            + "'ID  SENDER  NAME  RECEIVED/ANNOUNCED  EXPIRES': a push that stopped halfway counts its announced "
            + "length against the quota until it finishes, is dropped ('handoff inbox drop --partial ID') or "
            + "expires 24 h after it started.")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await ShareCommand.sharing(context)
        if invocation[\.partial] { return try await listPartials(invocation, service: service, context: context) }
        let items = try await service.inbox()
        if invocation[\.json] {
            context.terminal.outRaw(try JSONOutput.document(items))
        } else if invocation[\.ids] {
            for item in items { context.terminal.out(item.id + "\n") }
        } else {
            if items.isEmpty { context.terminal.note("the inbox is empty") }
            for item in items {
                context.terminal.out("\(item.id)  \(ActivitySummary.printable(item.sender))  \(ActivitySummary.printable(item.name))  "
                    + "\(ShareCommand.byteString(item.sizeBytes))  \(Int(item.ageSeconds)) s ago\n")
            }
            let partials = try await service.inboxPartials()
            if !partials.isEmpty {
                context.terminal.note("\(partials.count) push(es) still arriving hold room in the inbox: "
                    + "'handoff inbox list --partial'")
            }
        }
        return .success
    }

    private static func listPartials(_ invocation: Parsed<Parameters>, service: any SharingService,
                                     context: CommandContext) async throws -> ExitCode {
        let partials = try await service.inboxPartials()
        if invocation[\.json] {
            context.terminal.out(try JSONOutput.document(partials))
        } else if invocation[\.ids] {
            for partial in partials { context.terminal.out(partial.id + "\n") }
        } else {
            if partials.isEmpty { context.terminal.note("no push is arriving") }
            for partial in partials {
                context.terminal.out("\(partial.id)  \(partial.sender)  \(partial.name.isEmpty ? "-" : partial.name)  "
                    + "\(ShareCommand.byteString(partial.receivedBytes))/"
                    + "\(ShareCommand.byteString(partial.announcedBytes))  expires in "
                    + "\(Int(partial.expiresInSeconds / 60)) min\n")
            }
        }
        return .success
    }
}

/// `handoff inbox take`.
enum InboxTakeCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let ids = Argument<String>("id", help: "The items to take.", optional: true, repeating: true,
                                   completion: InboxCommand.idCompletion)
        let all = Flag("all", help: "Take every item.")
        let to = Option<String>("to", valueName: "dir", help: "Where to put files (default: the current directory).",
                                completion: .file)
        let print = Flag("print", help: "Write text and links to standard output instead of a file.")
        let open = Flag("open", help: "After taking a link, open it with xdg-open (http and https only).")
        let json = Flag("json", help: "Print a JSON array of what was taken (id, name, path, printed).")
    }

    static let configuration = CommandConfiguration(
        name: "take",
        abstract: "Move items out of the inbox, each exactly once.",
        discussion: """
            Each item becomes a file in the directory (--to, default the current one) under its safe name; a \
            name that exists gets ' (2)', ' (3)'... and nothing is ever overwritten. An item is never lost and \
            never delivered twice: a take that is killed halfway is completed by the next 'handoff inbox take', \
            and two takes at once never both get one item (the second reports it busy). Nothing taken is opened \
            or run, except a link with --open.
            """,
        examples: [Example("handoff inbox take --all --to ~/Downloads", "Take everything into ~/Downloads.")])

    struct Taken: Encodable {
        let id: String
        let name: String
        let path: String?
        let printed: Bool
    }

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await ShareCommand.sharing(context)
        let waiting = try await service.inbox()
        var wanted = invocation.all(\.ids)
        if invocation[\.all] { wanted = waiting.map(\.id) } else if wanted.isEmpty {
            throw CLIError(.usage, "name the items to take, or --all")
        }
        let directory = URL(fileURLWithPath: invocation[\.to] ?? FileManager.default.currentDirectoryPath,
                            isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CLIError(.noInput, "\(directory.path) is not a directory") }
        let taker = InboxTaker(service: service)
        var taken: [Taken] = []
        var failures = 0
        for id in wanted {
            let entry = waiting.first { $0.id == id }
            do {
                if invocation[\.print], let entry, entry.kind != "file" {
                    let bytes = try await printOnce(id, service: service)
                    context.terminal.outRaw(String(decoding: bytes, as: UTF8.self) + (bytes.last == 10 ? "" : "\n"))
                    taken.append(Taken(id: id, name: entry.name, path: nil, printed: true))
                    if invocation[\.open], entry.kind == "url" { openLink(bytes, context: context) }
                    continue
                }
                switch try await taker.take(id, into: directory) {
                case .delivered(let url):
                    taken.append(Taken(id: id, name: url.lastPathComponent, path: url.path, printed: false))
                    if !invocation[\.json] { context.terminal.note("took \(entry?.name ?? id) → \(url.path)") }
                    if invocation[\.open], entry?.kind == "url", let bytes = try? Data(contentsOf: url) {
                        openLink([UInt8](bytes), context: context)
                    }
                case .alreadyDelivered:
                    if !invocation[\.json] {
                        context.terminal.note("\(id) had already been taken by an interrupted take; finished it")
                    }
                }
            } catch {
                failures += 1
                context.terminal.error("\(id): \(Handoff.describe(error).1)")
            }
        }
        if invocation[\.json] { context.terminal.outRaw(try JSONOutput.document(taken)) }
        return failures == 0 ? .success : .failure
    }

    /// Claims a text item, reads it, finishes it (a print that is killed is printed again by the next take).
    static func printOnce(_ id: String, service: any SharingService) async throws -> [UInt8] {
        let grant = try await service.claimInboxItem(id, destination: "/dev/stdout")
        defer { grant.data.close() }
        let bytes: [UInt8]
        do {
            bytes = try grant.data.readAll()
        } catch {
            try? await service.releaseInboxItem(id)
            throw error
        }
        try await service.finishInboxItem(id)
        return bytes
    }

    /// Opens an http(s) link with xdg-open, only because the user asked (--open).
    static func openLink(_ bytes: [UInt8], context: CommandContext) {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            context.terminal.warning("not opening '\(text)': only http and https links are opened")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url.absoluteString]
        do { try process.run() } catch { context.terminal.warning("cannot run xdg-open: \(error.localizedDescription)") }
    }
}

/// `handoff inbox drop`.
enum InboxDropCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let ids = Argument<String>("id", help: "The items to delete.", repeating: true,
                                   completion: InboxCommand.idCompletion)
        let partial = Flag("partial", help: "The ids are pushes still arriving ('handoff inbox list --partial'): "
            + "delete what they stored and free their room in the inbox.")
    }

    static let configuration = CommandConfiguration(
        name: "drop", abstract: "Delete items (or, with --partial, pushes still arriving) from the inbox.")

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let service = try await ShareCommand.sharing(context)
        for id in invocation.all(\.ids) {
            if invocation[\.partial] {
                try await service.dropInboxPartial(id)
            } else {
                try await service.dropInboxItem(id)
            }
        }
        return .success
    }
}
