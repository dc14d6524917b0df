import DBus
import Foundation
import HandoffClient
import HandoffCommandLine

/// `handoff continue` of what is playing (`org.handoff.media`, offered by `handoff-media`, the MPRIS bridge):
/// the same URL opens in this machine's MPRIS player on the session bus (`OpenUri`), then moves to where the
/// source is now (`SetPosition`: the source's position plus the time since it was read, while it plays).
///
/// userInfo (all from the peer, so checked): `url` (http, https or file), `position` (seconds), `playing`
/// (`true`/`false`), `capturedAt` (seconds since 1970 when the position was read), `title`, `player`.
struct MediaContinuation {
    static let type = "org.handoff.media"
    static let prefix = "org.mpris.MediaPlayer2."
    static let objectPath: ObjectPath = "/org/mpris/MediaPlayer2"
    static let playerInterface: InterfaceName = "org.mpris.MediaPlayer2.Player"

    let url: URL
    let position: Double
    let playing: Bool
    let capturedAt: Double?
    let title: String

    /// Reads the peer's userInfo; refuses anything but an absolute http, https or file URL.
    init(_ content: ActivityContent) throws {
        let info = content.userInfo
        guard let text = info["url"], let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw CLIError(.dataError, "what is playing came without a usable url")
        }
        guard ["http", "https", "file"].contains(scheme) else {
            throw CLIError(.dataError, "media not opened: only http, https and file URLs are, this one is '"
                + ActivitySummary.printable(scheme) + "'")
        }
        self.url = url
        let position = Double(info["position"] ?? "") ?? 0
        self.position = position.isFinite ? max(0, position) : 0
        playing = info["playing"] == "true"
        capturedAt = Double(info["capturedAt"] ?? "").flatMap { $0.isFinite ? $0 : nil }
        title = info["title"] ?? content.title
    }

    /// Where the source is now: its position, plus, while it plays, the time since it was read (by the source's
    /// clock, else the activity's age on this device), never negative or more than a day.
    func position(now: Date, age: Double) -> Double {
        guard playing else { return position }
        let elapsed = capturedAt.map { now.timeIntervalSince1970 - $0 } ?? age
        return position + min(max(0, elapsed), 86_400)
    }

    /// Opens it in the first MPRIS player on the session bus and seeks; returns the player's bus name.
    func open(age: Double, environment: [String: String]) async throws -> String {
        let session: Connection
        do throws(DBusError) {
            if let address = environment["DBUS_SESSION_BUS_ADDRESS"] {
                session = try Connection(.address(address))
            } else {
                session = try Connection(.session)
            }
        } catch {
            throw CLIError(.unavailable, "no session bus to find a media player on: \(error.message)")
        }
        defer { session.close() }
        let names = try await session.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames")
        let players = try [String](dbusValue: names.first ?? .array(.string, [])).filter { $0.hasPrefix(Self.prefix) }
            .sorted()
        guard let name = players.first, let bus = BusName(rawValue: name) else {
            throw CLIError(.unavailable, "no MPRIS media player is running on the session bus (start one, e.g. "
                + "mpv with mpv-mpris, and continue again)")
        }
        let player = Proxy(connection: session, destination: bus, path: Self.objectPath,
                           interface: Self.playerInterface, timeout: .seconds(5))
        let before = try? await player.property("Metadata", as: [String: Variant].self)
        try await player.call("OpenUri", .string(url.absoluteString))
        // The player loads the track asynchronously: wait for its new track id (at most 10 s).
        var trackID: ObjectPath?
        for _ in 0..<200 {
            let metadata = try? await player.property("Metadata", as: [String: Variant].self)
            // A new track id ("/noplaylist" is MPRIS's "no track"). Some players (mpv-mpris) keep saying
            // PlaybackStatus Stopped for a track opened from idle although it plays, so that is not waited for.
            // The same URL again (continued twice) may leave the metadata as it was: its url says it is there.
            if let metadata,
               metadata != before || before == nil
                || (try? metadata["xesam:url"]?.get(String.self)) == url.absoluteString,
               let id = try? metadata["mpris:trackid"]?.get(ObjectPath.self), id.rawValue != "/noplaylist" {
                trackID = id
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let trackID else {
            throw CLIError(.unavailable, "\(name) did not load \(ActivitySummary.printable(url.absoluteString))")
        }
        // A player may show the new track before it can seek in it, and drop a seek made too early: seek until
        // the player says it is there (at most 2 s), each time to where the source is by then.
        for _ in 0..<20 {
            let target = position(now: Date(), age: age)
            try await player.call("SetPosition", .objectPath(trackID), .int64(Int64(target * 1_000_000)))
            try await Task.sleep(for: .milliseconds(100))
            if let now = try? await player.property("Position", as: Int64.self),
               abs(Double(now) / 1_000_000 - position(now: Date(), age: age)) < 0.5 {
                break
            }
        }
        if !playing { try await player.call("Pause") }
        return name
    }
}

extension DesktopContinuation {
    /// Restores an `org.handoff.media` activity; `--print` only prints its URL and position.
    static func restoreMedia(_ continued: ContinuedActivity, printOnly: Bool, context: CommandContext) async throws
        -> ExitCode {
        let media = try MediaContinuation(continued.content)
        let device = ActivitySummary.printable(continued.summary.device)
        let at = media.position(now: Date(), age: continued.summary.age)
        let clock = String(format: "%d:%02d", Int(at) / 60, Int(at) % 60)
        if printOnly {
            context.terminal.out("\(media.url.absoluteString) at \(clock)\n")
            return .success
        }
        let player = try await media.open(age: continued.summary.age, environment: context.environment)
        context.terminal.note("\(media.playing ? "playing" : "paused at") "
            + ActivitySummary.printable(media.title.isEmpty ? media.url.absoluteString : media.title)
            + " from \(device) in \(ActivitySummary.printable(String(player.dropFirst(MediaContinuation.prefix.count))))"
            + " at \(clock)")
        return .success
    }
}
