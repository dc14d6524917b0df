import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import L2CAP
import HandoffShared

/// HandoffKit's `Radio` over BlueZ, on one adapter chosen by name.
///
/// ```swift
/// let radio = try await BlueZRadio.connect(adapter: "hci0")            // the system bus
/// let engine = try HandoffEngine(configuration: configuration, trust: store, radio: radio, delegate: delegate)
/// try await engine.start()
/// ```
///
/// The beacon travels as one `LEAdvertisement1` (Type `peripheral`, `ManufacturerData {0xFFFF: beacon}`); scanning
/// is an advertisement monitor on that data (passive; bluetoothd reports only matching devices), or a filtered
/// discovery (`Transport=le`, `DuplicateData=true`) where bluetoothd offers no monitor, whose Device1 objects
/// become `ScanEvent`s (see ``BlueZRadioOptions/scanning``); the
/// transfer service is a GATT application under `/org/handoff/…`; links are GATT client connections. Peers are
/// named by their BlueZ device path (`/org/bluez/hci1/dev_00_AA_01_00_00_00`). When bluetoothd restarts, the BlueZ
/// layer registers the advertisement and the application again, and the radio restarts discovery, so scan
/// streams keep going. The same holds when the adapter is switched off and on: the radio never switches it on by
/// itself after creation, and restarts discovery as soon as bluetoothd reports it on again (the kernel keeps the
/// advertisement and brings it back on power-on).
public actor BlueZRadio: Radio {
    /// The BlueZ connection the radio uses.
    public nonisolated let bluez: BlueZ
    /// The adapter's name (`hci0`).
    public nonisolated let adapterName: String
    /// The options given at creation.
    public nonisolated let options: BlueZRadioOptions
    nonisolated let adapter: Adapter1

    var advertisement: AdvertisementRegistration?
    /// What is advertised now (nil when nothing is), to put it on the air again after a power cycle.
    var advertised: LEAdvertisement?
    /// Advertising operations, one at a time in call order (``serially(_:)``).
    var advertising = SerialTasks()
    var serviceOpen = false
    var scanners: [UUID: AsyncStream<ScanEvent>.Continuation] = [:]
    var beacons: [ObjectPath: [UInt8]] = [:]
    /// Devices whose next advertisement is reported even if unchanged (``reportNextAdvertisement(of:)``).
    var awaitedAdvertisements: Set<ObjectPath> = []
    var discovery: DeviceScan?
    var discoveryPump: Task<Void, Never>?
    var discoveryRefresher: Task<Void, Never>?
    var adapterWatch: Task<Void, Never>?
    /// Peers' connections while advertising (``watchConnections()``), and the advertisement refresh one made due.
    var connectionWatch: Task<Void, Never>?
    var rearm: Task<Void, Never>?
    var restartingDiscovery = false
    /// How many ``renewDiscovery(because:)`` calls are under way (their StopDiscovery turns `Discovering` off).
    var renewals = 0
    /// One link per device at a time (see `DeviceLeases`).
    nonisolated let leases: DeviceLeases
    /// Devices to forget before the next connect, their cached attribute table being stale (`StaleCaches`).
    nonisolated let staleCaches = StaleCaches()
    /// PSMs read from peers' PSM characteristics, by device path (forgotten when a channel to one fails).
    var knownPSMs: [ObjectPath: UInt16] = [:]
    /// This adapter's address as a channel's source, once known.
    var localAddress: L2CAPAddress?
    /// What the radio scans with now (nil before the first scan); ``BlueZRadio/scanningState``.
    public internal(set) var scanningState: ScanningState?
    var scanGeneration: UInt64 = 0
    var pendingScanStart: Task<Result<Void, BlueZError>, Never>?
    /// A discovery of the radio's own while a connect waits for a peer bluetoothd does not know, when the radio
    /// had none (see ``searchForUnknownPeer()``); stopped when the last such connect is done.
    var peerSearch: DeviceScan?
    /// How many connects are waiting for a peer bluetoothd does not know.
    var peerSearchers = 0

    /// A radio on the adapter called `adapter` (`hci0`) of an existing BlueZ connection, or with nil on BlueZ's
    /// default adapter (``BlueZ/waitForDefaultAdapter(timeout:)``, the lowest-numbered). Waits for the adapter
    /// (bluetoothd may still be adding it) and, when `options.powerOn`, switches it on; an adapter that stays off
    /// (rfkill) is not an error: scanning starts when it is switched on.
    /// - Throws: `RadioError` `.failed` when the adapter does not appear within `options.adapterTimeout`.
    public init(adapter: String?, bluez: BlueZ, options: BlueZRadioOptions = BlueZRadioOptions()) async throws {
        let found: Adapter1
        do {
            if let adapter {
                found = try await bluez.waitForAdapter(named: adapter, timeout: options.adapterTimeout)
            } else {
                found = try await bluez.waitForDefaultAdapter(timeout: options.adapterTimeout)
            }
        } catch {
            throw RadioError(error, while: "cannot use adapter \(adapter ?? "(the default)")")
        }
        await self.init(adapter: found, bluez: bluez, options: options)
    }

    /// A radio on `adapter`, as the BlueZ layer handed it out (``BlueZ/adapter(named:)``); when `options.powerOn`,
    /// switches it on (a failure is logged: scanning starts when it is switched on).
    public init(adapter: Adapter1, bluez: BlueZ, options: BlueZRadioOptions = BlueZRadioOptions()) async {
        self.bluez = bluez
        self.options = options
        leases = DeviceLeases(clock: options.clock)
        self.adapter = adapter
        self.adapterName = adapter.name
        if options.powerOn {
            do {
                try await adapter.setPowered(true)
            } catch {
                options.log?("radio \(adapter.name): cannot switch the adapter on (\(ErrorChain.text(error))); scanning starts when it is on")
            }
        }
    }

    /// Whether the adapter is switched on, as the BlueZ mirror says.
    var isPowered: Bool {
        get async { await bluez.adapters().first { $0.path == adapter.path }?.powered ?? false }
    }

    /// Connects to `bus` (the system bus by default) and returns a radio on `adapter` (nil: BlueZ's default one).
    /// - Throws: `RadioError` `.failed` when the bus cannot be reached or the adapter is missing.
    public static func connect(adapter: String?, bus: Connection.Bus = .system,
                               options: BlueZRadioOptions = BlueZRadioOptions()) async throws -> BlueZRadio {
        let bluez: BlueZ
        do {
            bluez = try await BlueZ.connect(bus: bus, log: options.log, clock: options.clock)
        } catch {
            throw RadioError(error, while: "cannot reach BlueZ")
        }
        return try await BlueZRadio(adapter: adapter, bluez: bluez, options: options)
    }

    /// Stops advertising and scanning. The transfer service and links are closed by their own owners.
    public func close() async {
        await leases.flushLingering()
        await stopAdvertising()
        for scanner in scanners.values { scanner.finish() }
        scanners = [:]
        stopDiscovery()
        adapterWatch?.cancel()
        adapterWatch = nil
        rearm?.cancel()
        rearm = nil
    }

    /// A line worth a user's notice (`options.notice`, else the diagnostics), prefixed with the adapter.
    nonisolated func notice(_ text: String) {
        (options.notice ?? options.log)?("radio \(adapterName): \(text)")
    }

    nonisolated func debug(_ text: @autoclosure () -> String) {
        options.log?("radio \(adapterName): \(text())")
    }
}
