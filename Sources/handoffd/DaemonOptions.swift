import DBus
import HandoffKit
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// handoffd's command line.
struct DaemonOptions {
    /// The adapter asked for; nil: BlueZ's default one, and whichever stands in while it is away.
    var adapter: String?
    var apiBus: Connection.Bus = .system
    var apiBusText = "system"
    var stateDirectory = "/var/lib/handoff"
    var name: String?
    /// `--owner USER`: a user name or a uid, resolved at parse time.
    var owner: UInt32?
    var notifyBus: Connection.Bus?
    var debug = false
    var discoverable = false
    /// Big transfers move to a TCP connection over a network both machines already share (Docs/protocol.md §9).
    /// `--no-fast-lane` or HANDOFF_FAST_LANE=off keeps everything on Bluetooth.
    var fastLane = true
    /// `--max-item`: the largest item the outbox takes and the inbox accepts (nil: ShareSettings' 4 GB).
    var maximumItemSize: Int?
    /// `--inbox-quota`, `--outbox-quota` (nil: ShareSettings' 8 GB each).
    var inboxQuota: Int?
    var outboxQuota: Int?

    static let usage = """
        Usage: handoffd [OPTIONS]

        The handoff daemon: offers the current activity of this machine's user to their other paired devices
        over Bluetooth LE (BlueZ on the system bus) and serves the org.handoff.Handoff1 D-Bus API that the
        'handoff' command uses.

        Options:
          --adapter NAME      Bluetooth controller to use, by name (hci1) or address; it is followed by
                              its address wherever it comes back (a USB dongle as another hciN), and
                              the daemon waits while it is away. Default: BlueZ's default adapter (the
                              lowest-numbered), another one while it is away, and it again once it is
                              back. `handoff status` shows which is in use.
          --bus BUS           Bus for the API: system (default), session, or a D-Bus address such as
                              unix:path=/run/handoff/laptop/bus (one private bus per simulated machine).
          --state-dir DIR     Where the trust store and state live (default /var/lib/handoff; created 0700).
          --name NAME         This device's name as other devices show it (default: the host name).
          --owner USER        The Unix user (a name or a uid) who owns this daemon; recorded in the state
                              directory, replacing the recorded owner. Without it the first user to run
                              'handoff pair' owns it. Only the owner and root may use the daemon.
          --notify-bus BUS    Where to post desktop notifications: session, an address, or none (default:
                              the session bus when DBUS_SESSION_BUS_ADDRESS is set, else none).
          --discoverable      Advertise as LE discoverable (only needed with bluezoo, the BlueZ mock).
          --no-fast-lane      Keep every transfer on Bluetooth: never offer or use a TCP connection over a
                              network both machines share (also HANDOFF_FAST_LANE=off).
          --max-item SIZE     Largest item shared or received (default and most 4GB, what a push carries).
                              SIZE is bytes, or a number with kB, MB, GB (powers of 1000) or KiB, MiB,
                              GiB. Items go to disk as they arrive: memory does not grow with them.
          --inbox-quota SIZE  Disk the inbox may use, items arrived and arriving (default 8GB).
          --outbox-quota SIZE Disk the outbox's copies of pending items may use (default 8GB).
          --debug             Log the radio's diagnostics too.
          --help, --version

        BlueZ is always reached on the system bus (DBUS_SYSTEM_BUS_ADDRESS overrides its address).
        Exit status: 0 after SIGTERM or SIGINT, 1 when it cannot start, 64 on a usage error.
        """

    struct UsageError: Error {
        let message: String
    }

    enum Parsed {
        case run(DaemonOptions)
        case help
        case version
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Parsed {
        var options = DaemonOptions()
        if let session = environment["DBUS_SESSION_BUS_ADDRESS"], !session.isEmpty { options.notifyBus = .session }
        if let lane = environment["HANDOFF_FAST_LANE"], ["off", "0", "no", "false"].contains(lane.lowercased()) {
            options.fastLane = false
        }
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let next = rest.popFirst(), !next.isEmpty else { throw UsageError(message: "\(option) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            var argument = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                rest.insert(String(argument[argument.index(after: equals)...]), at: rest.startIndex)
                argument = String(argument[..<equals])
            }
            switch argument {
            case "--adapter": options.adapter = try value(argument)
            case "--bus":
                options.apiBusText = try value(argument)
                options.apiBus = bus(options.apiBusText)
            case "--state-dir": options.stateDirectory = try value(argument)
            case "--name": options.name = try value(argument)
            case "--owner": options.owner = try user(try value(argument))
            case "--notify-bus":
                let text = try value(argument)
                options.notifyBus = text == "none" ? nil : bus(text)
            case "--debug": options.debug = true
            case "--discoverable": options.discoverable = true
            case "--no-fast-lane": options.fastLane = false
            case "--max-item":
                let size = try self.size(try value(argument), for: argument)
                guard size <= ShareLimits.largestItem else {
                    throw UsageError(message: "--max-item: at most \(ShareLimits.largestItem) bytes (4GB), what a push carries")
                }
                options.maximumItemSize = size
            case "--inbox-quota": options.inboxQuota = try self.size(try value(argument), for: argument)
            case "--outbox-quota": options.outboxQuota = try self.size(try value(argument), for: argument)
            case "--help", "-h": return .help
            case "--version": return .version
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        if let name = options.name, name.isEmpty || name.utf8.count > 16 {
            throw UsageError(message: "--name must be 1 to 16 UTF-8 bytes (it travels in the pairing beacon)")
        }
        return .run(options)
    }

    /// Bytes in `text`: a number, with a unit or not (`16MiB`, `4GB`, `500 kB`).
    static func size(_ text: String, for option: String) throws -> Int {
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
                                      ("kB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1)]
        var number = Substring(text)
        var scale = 1
        if let (suffix, factor) = units.first(where: { number.hasSuffix($0.0) }) {
            number = number.dropLast(suffix.count)
            scale = factor
        }
        while number.last == " " { number = number.dropLast() }
        guard let value = Int(number), value > 0,
              value <= Int.max / scale else {
            throw UsageError(message: "\(option): '\(text)' is not a size (bytes, or a number with kB, MB, GB, KiB, MiB, GiB)")
        }
        return value * scale
    }

    /// The uid of `text`, a user name or a number.
    static func user(_ text: String) throws -> UInt32 {
        if let uid = UInt32(text) { return uid }
        guard let entry = getpwnam(text) else { throw UsageError(message: "--owner: no user is called '\(text)'") }
        return entry.pointee.pw_uid
    }

    static func bus(_ text: String) -> Connection.Bus {
        switch text {
        case "system": return .system
        case "session": return .session
        default: return .address(text)
        }
    }
}
