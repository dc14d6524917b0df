import Foundation
import HandoffClient
import HandoffCommandLine

/// `handoff share`: hand files, text or a link to the daemon for delivery to one paired device's inbox.
enum ShareCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let paths = Argument<String>(
            "path", help: "Files to share; '-' shares standard input (as text when it is UTF-8).", optional: true,
            repeating: true, completion: .file)
        let text = Option<String>("text", valueName: "text", help: "Share this text.")
        let url = Option<String>("url", valueName: "url", help: "Share this link (an absolute URL).")
        let to = Option<String>("to", valueName: "device", help: "The paired device to send to (its name or id).")
        let wait = Flag("wait", help: "Wait until every item is delivered, with a progress bar on a terminal.")
        let json = Flag("json", help: "Print the outbox entries as a JSON array (after --wait: their final state).")
    }

    static let configuration = CommandConfiguration(
        name: "share",
        abstract: "Send files, text or a link to the inbox of one of your paired devices (daemon).",
        discussion: """
            The daemon copies each item into its outbox and delivers it in the background: the command \
            returns at once, and the transfer goes on when the other device comes into range, resumes from the \
            last byte it holds after a drop or a restart of either side, and is given up after 24 hours. See \
            'handoff outbox'. With '-' the command returns once standard input has ended: it streams to the \
            daemon as it is read, of any length, and a share interrupted before the end leaves nothing. Items are \
            limited to 4 GB by default (handoffd --max-item). A big item moves to \
            the fast lane when both machines share a network (a LAN, a VPN): a 100 MiB file in seconds. Over \
            Bluetooth alone 1 MiB takes 3-4 s on an L2CAP channel and 67-117 s where only GATT works.

            Without --to, the item goes to the one paired device in range; when several are, you are asked on \
            a terminal, and with --json or without a terminal the command fails naming them.
            """,
        examples: [
            Example("handoff share report.pdf", "Send a file to the paired device in range."),
            Example("handoff share --to desktop --url https://example.org", "Send a link to 'desktop'."),
            Example("echo hello | handoff share -", "Send standard input as text."),
        ])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let requests = try items(invocation, context: context)
        let service = try await sharing(context)
        let device = try await target(invocation[\.to], service: service, context: context,
                                      interactive: !invocation[\.json])
        var entries: [OutboxEntry] = []
        for request in requests {
            let entry = try await service.share(request, to: device)
            entries.append(entry)
            if !invocation[\.json] {
                context.terminal.note("\(entry.name) (\(byteString(entry.totalBytes))) queued for \(entry.device) "
                    + "as \(entry.id)")
            }
        }
        guard invocation[\.wait] else {
            if invocation[\.json] { context.terminal.outRaw(try JSONOutput.document(entries)) }
            return .success
        }
        let final = try await waitForDelivery(of: entries.map(\.id), service: service, context: context,
                                              announce: !invocation[\.json])
        if invocation[\.json] { context.terminal.outRaw(try JSONOutput.document(final)) }
        var failed = false
        for entry in final where entry.state != "delivered" {
            failed = true
            context.terminal.error("\(entry.name) was not delivered to \(entry.device): \(entry.reason)")
        }
        if !invocation[\.json], !failed {
            context.terminal.note("delivered to \(final.first?.device ?? device)" + lane(of: final))
        }
        return failed ? .failure : .success
    }

    /// The daemon as a ``SharingService``.
    static func sharing(_ context: CommandContext) async throws -> any SharingService {
        guard let service = try await context.service() as? any SharingService else {
            throw CLIError(.failure, "this daemon connection cannot share")
        }
        return service
    }

    /// What the command line asks to share.
    static func items(_ invocation: Parsed<Parameters>, context: CommandContext) throws -> [ShareRequest] {
        var requests: [ShareRequest] = []
        for path in invocation.all(\.paths) {
            if path == "-" {
                // Streamed to the daemon as it is read, of whatever length; text when every byte is UTF-8.
                let text = ShareRequest.Label(kind: "text", name: "text.txt", mediaType: "text/plain;charset=utf-8")
                requests.append(ShareRequest(kind: "file", name: "stdin.bin", mediaType: "application/octet-stream",
                                             content: .stream(try context.terminal.openInput(), asText: text)))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError(.noInput, "\(path): no such file")
            }
            guard !isDirectory.boolValue else { throw CLIError(.usage, "\(path) is a directory; share files") }
            let handle: OpenFile
            do { handle = try OpenFile(forReadingAtPath: path) } catch {
                throw CLIError(.ioError, "cannot read \(path): \(error.message)")
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            requests.append(ShareRequest(kind: "file", name: name, mediaType: MediaType.guess(for: name),
                                         content: .file(handle)))
        }
        if let text = invocation[\.text] {
            requests.append(ShareRequest(kind: "text", name: "text.txt", mediaType: "text/plain;charset=utf-8",
                                         content: .bytes(Array(text.utf8))))
        }
        if let link = invocation[\.url] {
            guard let parsed = URL(string: link), let scheme = parsed.scheme, !scheme.isEmpty else {
                throw CLIError(.usage, "'\(link)' is not an absolute URL")
            }
            requests.append(ShareRequest(kind: "url", name: "link.txt", mediaType: "text/uri-list",
                                         content: .bytes(Array(link.utf8))))
        }
        guard !requests.isEmpty else {
            throw CLIError(.usage, "nothing to share: give files, '-', --text TEXT or --url URL")
        }
        return requests
    }

    /// `--to`, else the one paired device in range, else the user's choice on a terminal.
    static func target(_ given: String?, service: any SharingService, context: CommandContext,
                       interactive: Bool) async throws -> String {
        if let given { return given }
        let devices = try await service.devices()
        let inRange = devices.filter(\.inRange)
        switch inRange.count {
        case 0:
            if devices.count == 1, let only = devices.first { return only.id }   // queued until it comes back
            let names = devices.map(\.name).joined(separator: ", ")
            throw CLIError(.noInput, devices.isEmpty ? "no paired device; pair one with 'handoff pair'"
                : "no paired device is in range; choose one with --to (\(names))")
        case 1:
            return inRange[0].id
        default:
            let names = inRange.map(\.name).joined(separator: ", ")
            guard interactive, context.terminal.inputIsTerminal else {
                throw CLIError(.usage, "several paired devices are in range (\(names)); choose one with --to")
            }
            for (index, device) in inRange.enumerated() {
                context.terminal.err("  \(index + 1)) \(device.name)\n")
            }
            context.terminal.err("Send to which? [1] ")
            let line = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { return inRange[0].id }
            guard let number = Int(line), inRange.indices.contains(number - 1) else {
                throw CLIError(.usage, "'\(line)' is not a number between 1 and \(inRange.count)")
            }
            return inRange[number - 1].id
        }
    }

    /// ` over tcp (fast lane) at 38.2 MB/s`: the last item's path and rate, when the daemon reports them.
    static func lane(of entries: [OutboxEntry]) -> String {
        guard let last = entries.last, let transport = last.transport else { return "" }
        let rate = last.bytesPerSecond.map { $0 > 0 ? " at \(byteString(Int($0)))/s" : "" } ?? ""
        return " over \(transport)\(transport == "tcp" ? " (fast lane)" : "")\(rate)"
    }

    /// Polls the outbox until every item in `ids` is delivered, failed or cancelled; with `announce`, says on
    /// standard error each time an item's path changes (Bluetooth, then the fast lane).
    static func waitForDelivery(of ids: [String], service: any SharingService, context: CommandContext,
                                announce: Bool = false) async throws -> [OutboxEntry] {
        let bar = ProgressBar(terminal: context.terminal, enabled: context.terminal.errorIsTerminal)
        defer { bar.finish() }
        var shown: [String: String] = [:]
        while true {
            let listed = (try? await service.outboxPaths()) ?? []
            let paths = Dictionary(listed.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var entries = try await service.outbox().filter { ids.contains($0.id) }
            for index in entries.indices {
                guard let path = paths[entries[index].id] else { continue }
                entries[index].transport = path.transport
                entries[index].bytesPerSecond = path.bytesPerSecond
                if announce, shown[path.id] != path.transport, !entries[index].isFinal {
                    shown[path.id] = path.transport
                    bar.interrupt()
                    context.terminal.note("\(entries[index].name): over \(path.transport)"
                        + (path.transport == "tcp" ? " (fast lane)" : ""))
                }
            }
            let sent = entries.reduce(0) { $0 + $1.sentBytes }
            let total = entries.reduce(0) { $0 + $1.totalBytes }
            bar.update(ContinueProgress(phase: .transferring, receivedBytes: sent, totalBytes: total))
            if entries.count == ids.count, entries.allSatisfy(\.isFinal) { return entries }
            try await context.clock.sleep(for: .milliseconds(250))
        }
    }

    static func byteString(_ count: Int) -> String {
        if count < 1000 { return "\(count) B" }
        if count < 1_000_000 { return String(format: "%.1f kB", Double(count) / 1000) }
        return String(format: "%.1f MB", Double(count) / 1_000_000)
    }
}

/// A media type from a file name's extension, for the receiving side's metadata (it never decides what runs).
enum MediaType {
    static func guess(for name: String) -> String {
        let table = ["txt": "text/plain", "md": "text/markdown", "pdf": "application/pdf", "png": "image/png",
                     "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "html": "text/html",
                     "json": "application/json", "zip": "application/zip", "gz": "application/gzip",
                     "tar": "application/x-tar", "mp3": "audio/mpeg", "mp4": "video/mp4", "csv": "text/csv"]
        let ext = (name as NSString).pathExtension.lowercased()
        return table[ext] ?? "application/octet-stream"
    }
}
