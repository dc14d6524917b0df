import DBus
import HandoffClient

/// Posts "available from DEVICE" desktop notifications through `org.freedesktop.Notifications` on a session bus.
/// Best effort: a missing bus or notification server is logged once and never fails the daemon.
public final class DesktopNotifier: Sendable {
    private let connection: Connection?
    private let logger: DaemonLogger

    /// Connects to `bus` (normally the session bus); when that fails, logs why and notifies nothing.
    public init(bus: Connection.Bus?, logger: DaemonLogger) {
        self.logger = logger
        guard let bus else {
            logger.log("desktop notifications: off (no session bus given)")
            connection = nil
            return
        }
        do {
            connection = try Connection(bus)
            logger.log("desktop notifications: through org.freedesktop.Notifications on \(bus)")
        } catch {
            logger.notice("desktop notifications: off, no session bus (\(error.message))")
            connection = nil
        }
    }

    /// Shows one notification (`laptop sent report.pdf (1.2 MB)`); logs and ignores any failure.
    public func notify(summary: String, body: String) async {
        guard let connection else { return }
        do {
            _ = try await connection.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "Notify",
                arguments: [.string("handoff"), .uint32(0), .string(""), .string(summary), .string(body),
                            .array(.string, []), .dictionary(key: .string, value: .variant, []), .int32(-1)],
                timeout: .seconds(5))
        } catch {
            logger.warning("desktop notification not shown: \(error.message)")
        }
    }

    /// Shows one notification for `activity`; logs and ignores any failure.
    public func notify(_ activity: ActivitySummary) async {
        var summary = "Handoff from \(activity.device)"
        var body = activity.title.isEmpty ? "\(activity.type) is available: run 'handoff continue'"
            : "\(activity.title) (\(activity.type)): run 'handoff continue'"
        if let kind = ActivityKind(type: activity.type), let line = activity.kindLine {
            // "clipboard from laptop" / "run 'handoff paste'".
            (summary, body) = (line, "run '\(kind.command)'")
        }
        await notify(summary: summary, body: body)
    }
}
