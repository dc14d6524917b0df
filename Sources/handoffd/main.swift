import BlueZ
import DBus
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HandoffBlueZ
import HandoffDaemon
import HandoffKit
import HandoffLane
import HandoffShared

/// handoffd: the radio over BlueZ, the daemon over it, the API on a bus; runs until SIGTERM or SIGINT.
///
/// Two things come before anything else: the signals are blocked before any thread exists (``DaemonSignals``), and
/// the executors are installed before the first task (``ProgramExecutors``), so every task runs on this thread and
/// no Dispatch queue is ever used (Docs/performance.md, "At rest").
let signals = DaemonSignals()
let options: DaemonOptions
do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch try DaemonOptions.parse(arguments, environment: ProcessInfo.processInfo.environment) {
    case .run(let parsed): options = parsed
    case .help:
        print(DaemonOptions.usage)
        exit(0)
    case .version:
        print("handoffd \(DaemonConfiguration.version)")
        exit(0)
    }
} catch let error as DaemonOptions.UsageError {
    var text = "handoffd: \(error.message)\n\(DaemonOptions.usage)\n"
    _ = text.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(64)
}
let logger = DaemonLogger.standardError(threshold: options.debug ? .debug : .info)

func fail(_ message: String) -> Never {
    logger.error(message)
    exit(1)
}

ProgramExecutors.run { await serve() }

/// The daemon's life on the executor: start, serve until SIGTERM or SIGINT, withdraw, exit.
@MainActor func serve() async -> Never {
    // One clock for the radio, the engine and the daemon.
    let clock: any HandoffClock = RealClock()
    var radioOptions = BlueZRadioOptions()
    radioOptions.clock = clock
    radioOptions.discoverable = options.discoverable
    radioOptions.notice = { logger.notice("radio: \($0)") }
    // Measuring and test knobs (bench/, the VM scenarios): HANDOFF_SCANNING=discovery forces a discovery instead of
    // the advertisement monitor; HANDOFF_DISCOVERY_REFRESH=SECONDS restarts a discovery that often (btvirt needs it).
    let environment = ProcessInfo.processInfo.environment
    if environment["HANDOFF_SCANNING"] == "discovery" { radioOptions.scanning = .discovery }
    if let refresh = environment["HANDOFF_DISCOVERY_REFRESH"].flatMap(Double.init), refresh > 0 {
        radioOptions.discoveryRefresh = .milliseconds(Int(refresh * 1000))
    }
    if options.debug { radioOptions.log = { logger.debug("radio: \($0)") } }
    // HANDOFF_TRANSPORT=auto|gatt|l2cap: the path for transfer frames (benches compare both in one boot);
    // HANDOFF_CONNECT_NUDGE=0 turns the connect nudge off (BlueZRadioOptions.connectNudge), for the same reason.
    do {
        try radioOptions.setConnectNudge(fromEnvironment: environment)
        if let transport = try BlueZRadioOptions.Transport.fromEnvironment(ProcessInfo.processInfo.environment) {
            radioOptions.transport = transport
            logger.log("transfer path: \(transport.rawValue) (HANDOFF_TRANSPORT)")
        }
    } catch {
        fail("\(error)")
    }
    // The radio follows the adapter: --adapter's (by its address), else BlueZ's default and whichever stands in
    // while it is away (FollowingBlueZRadio, AdapterChoice). Having none yet is no reason not to start.
    let radio: FollowingBlueZRadio
    do {
        radio = try await FollowingBlueZRadio.connect(options.adapter.map { .named($0) } ?? .automatic,
                                                      options: radioOptions)
    } catch {
        fail(ErrorChain.text(error))
    }

    let connection: Connection
    do {
        connection = try Connection(options.apiBus)
    } catch {
        fail("cannot connect to the API bus (\(options.apiBusText)): \(error.message)")
    }

    let daemon: HandoffDaemon
    do {
        var configuration = try DaemonConfiguration(
            stateDirectory: URL(fileURLWithPath: options.stateDirectory),
            deviceName: options.name ?? String(ProcessInfo.processInfo.hostName.prefix(16)))
        configuration.clock = clock
        configuration.owner = options.owner
        // The fast lane: TCP on the interfaces this machine already has, never loopback (LanePolicy.production).
        configuration.handoff.fastLane = options.fastLane ? FastLane(network: TCPLane()) : nil
        if let size = options.maximumItemSize {
            configuration.share.maximumItemSize = size
            configuration.share.inbox.maximumItemSize = size
        }
        if let quota = options.inboxQuota { configuration.share.inbox.quota = quota }
        if let quota = options.outboxQuota { configuration.share.outboxQuota = quota }
        if !options.fastLane {
            logger.log("fast lane: off")
        } else if let reason = TCPLane.selfCheck() {
            logger.warning("fast lane: on, but this daemon cannot use it (\(reason)): every transfer stays on Bluetooth; "
                + "allow AF_INET, AF_INET6 and AF_NETLINK in the unit's RestrictAddressFamilies, or run with --no-fast-lane")
        } else {
            logger.log("fast lane: on (big transfers may move to a network both machines share)")
        }
        configuration.adapter = { await radio.statusReport() }
        configuration.scanning = { await radio.scanningState?.description }
        let notifier = DesktopNotifier(bus: options.notifyBus, logger: logger)
        daemon = try await HandoffDaemon.launch(configuration: configuration, radio: radio, connection: connection,
                                                notifier: notifier, logger: logger)
        try await daemon.claimName()
    } catch {
        fail("cannot start: " + ErrorChain.text(error))
    }
    let adapter = await radio.statusReport()
    logger.log("serving on \(options.apiBusText); adapter: "
        + (adapter.name.map { "\($0) \(adapter.address ?? "")" } ?? "none") + " (\(adapter.choice ?? ""))")

    // SIGUSR1 logs how many messages each bus connection has been handed so far (bench/ reads the line). The
    // handler runs on the signal thread: it must be `@Sendable`, or, written in this main-actor code, it is taken
    // for main-actor code and traps there.
    signals.onStatistics { @Sendable [bluez = radio.bluez, connection] in
        logger.log("bus statistics: BlueZ connection \(bluez.connection.statistics); API connection "
            + "\(connection.statistics)")
    }

    // Wait for SIGTERM or SIGINT without polling; then withdraw everything and leave.
    let number = await signals.termination()
    logger.log("signal \(number): stopping")
    await daemon.stop()
    await radio.close()
    logger.log("bus statistics: BlueZ connection \(radio.bluez.connection.statistics); API connection "
        + "\(connection.statistics)")
    connection.close()
    exit(0)
}

extension FollowingBlueZRadio {
    /// The adapter in use, as Status reports it.
    func statusReport() async -> DaemonConfiguration.AdapterReport {
        let inUse = await adapterInUse()
        return DaemonConfiguration.AdapterReport(name: inUse?.name, address: inUse?.address?.string,
                                                 powered: inUse?.powered ?? false, choice: choice.summary)
    }
}
