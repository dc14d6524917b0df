import DBus
import FoundationEssentials
import HandoffShared

/// The entry point of the BlueZ layer: one connection to the bus bluetoothd is on, a live mirror of its object
/// tree, and everything we registered with it (advertisements, GATT applications, agents).
///
/// ```swift
/// let bluez = try await BlueZ.connect(bus: .system)
/// let adapter = try await bluez.adapter(named: "hci0")
/// try await adapter.setPowered(true)
/// ```
///
/// When bluetoothd leaves the bus and comes back (NameOwnerChanged on `org.bluez`), the mirror is rebuilt and
/// every live advertisement and GATT application is registered again, without the caller doing anything.
public actor BlueZ {
    /// The connection every call and export goes through.
    public nonisolated let connection: Connection
    /// Where diagnostics go (nil: nowhere). Libraries accept a logger, they never build one.
    nonisolated let log: BlueZLog?
    /// Where the layer reads time: its waits, retries' pauses and timestamps (`SystemClock` unless injected).
    public nonisolated let clock: any MonotonicClock

    /// The mirrored object tree of bluetoothd.
    public internal(set) var tree = ObjectTree()
    /// bluetoothd's unique name, nil while `org.bluez` has no owner.
    public internal(set) var owner: BusName?
    /// How many times bluetoothd (re)appeared since we connected; 1 after a normal start.
    public internal(set) var generation = 0
    /// When `org.bluez` last got a new owner (bluetoothd started or restarted) while we watched.
    public internal(set) var ownerAppearedAt: HandoffInstant?

    let changeBroadcast = Broadcaster<[ObjectTree.Change]>()
    var registrations: [UInt64: Registration] = [:]
    var nextID: UInt64 = 0
    var pumps: [Task<Void, Never>] = []
    var resynchronising = false
    var restorePending = false
    /// bluetoothd's signals held while the mirror is being read again (nil: applied as they come). The reply to
    /// GetManagedObjects and the signals reach the actor by different paths, so a signal bluetoothd sent after its
    /// reply could be applied before it, and the reset would then wipe it: after a restart under load, an adapter
    /// that appeared that way was missing from the mirror for good. Held signals are applied after the reset, in
    /// order; applying one again that the snapshot already holds changes nothing.
    var heldSignals: [Message]?
    /// Counts the reads of the mirror, so that a read overtaken by a newer one (bluetoothd restarting again) gives up.
    var mirrorReads = 0
    /// The one discovery this connection holds per adapter, and its users (BlueZ+DiscoverySessions.swift).
    var discoveries: [ObjectPath: DiscoverySession] = [:]
    /// Adapters on which a discovery step runs, and the steps waiting for it, in order.
    var discoveryBusy: Set<ObjectPath> = []
    var discoveryWaiters: [ObjectPath: [CheckedContinuation<Void, Never>]] = [:]

    init(connection: Connection, log: BlueZLog?, clock: any MonotonicClock) {
        self.connection = connection
        self.log = log
        self.clock = clock
    }

    /// Connects to the bus, subscribes to bluetoothd's signals, then mirrors its objects.
    ///
    /// It does not fail when bluetoothd is not running: the mirror stays empty and fills when it starts.
    /// `clock` is where every wait, pause and timestamp of the layer reads time.
    /// - Throws: ``BlueZError`` `.bus` when the bus itself cannot be reached.
    public static func connect(bus: Connection.Bus = .system, log: BlueZLog? = nil,
                               clock: any MonotonicClock = SystemClock()) async throws(BlueZError) -> BlueZ
    {
        let connection: Connection
        do {
            connection = try Connection(bus)
        } catch {
            throw BlueZError(.bus, "cannot connect to the D-Bus bus: \(error.message)", cause: error)
        }
        let bluez = BlueZ(connection: connection, log: log, clock: clock)
        try await bluez.start()
        return bluez
    }

    /// Stops mirroring and closes the connection; our exported objects leave the bus with it.
    public func close() {
        for pump in pumps { pump.cancel() }
        pumps.removeAll()
        changeBroadcast.finishAll()
        connection.close()
    }

    func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    func debug(_ text: @autoclosure () -> String) {
        log?(text())
    }
}

/// Receives the BlueZ layer's diagnostic lines.
public typealias BlueZLog = @Sendable (String) -> Void
