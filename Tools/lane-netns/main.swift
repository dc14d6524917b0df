// lane-netns: two HandoffKit engines in one process, BLE between them simulated in memory, each engine's fast
// lane in a network namespace of its own (the sockets are made by threads that entered the namespace). Run by
// scripts/netns-fastlane.sh and bench/lane.sh, which make the namespaces and the veth pair; see their headers.
//
//   lane-netns --sender-ns A --receiver-ns B --size BYTES [--no-lane] [--hostile]
//              [--drop IFACE --drop-at FRACTION[,FRACTION…] --down SECONDS] [--ble-rate BYTES_PER_S]
//              [--max-resent BYTES]
//
// With --drop, the sender's IFACE goes down for SECONDS each time the item, on the lane, passes a FRACTION of its
// bytes; each drop happens once, in order.
//
// Prints `RESULT key=value …` and exits 0 when the item arrived byte for byte (and, with --hostile, every hostile
// connection was closed within 1.5 s having received nothing), else prints `FAIL reason` and exits 1.
import Foundation
import HandoffKit
import HandoffLane
import HandoffShared
import HandoffTesting

// MARK: - Arguments

struct Options {
    var senderNamespace = ""
    var receiverNamespace = ""
    var size = 100 << 20
    var lane = true
    var hostile = false
    var dropInterface: String?
    var dropAt = [0.3]
    var down = 3.0
    /// The simulated BLE link's rate: 8 KiB SDUs, one every `8192 / rate` seconds (default 350 kB/s, the VM's
    /// measured L2CAP rate: 1 MiB in about 3 s, Docs/protocol.md §3).
    var bleRate = 350_000.0
    /// Fail when more than this many bytes crossed the network twice (radio and lane together).
    var maximumResent: Int?
}

func parse() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = arguments.next() {
        switch argument {
        case "--sender-ns": options.senderNamespace = arguments.next() ?? ""
        case "--receiver-ns": options.receiverNamespace = arguments.next() ?? ""
        case "--size": options.size = Int(arguments.next() ?? "") ?? options.size
        case "--no-lane": options.lane = false
        case "--hostile": options.hostile = true
        case "--drop": options.dropInterface = arguments.next()
        case "--drop-at":
            let fractions = (arguments.next() ?? "").split(separator: ",").compactMap { Double($0) }
            if !fractions.isEmpty { options.dropAt = fractions.sorted() }
        case "--down": options.down = Double(arguments.next() ?? "") ?? options.down
        case "--max-resent": options.maximumResent = Int(arguments.next() ?? "")
        case "--ble-rate": options.bleRate = Double(arguments.next() ?? "") ?? options.bleRate
        default:
            print("FAIL unknown argument \(argument)")
            exit(2)
        }
    }
    return options
}

// MARK: - Network namespaces

/// setns(2), which Swift's Glibc module does not declare (it needs _GNU_SOURCE).
enum Namespace {
    typealias SetNS = @convention(c) (Int32, Int32) -> Int32

    static func enter(_ name: String) -> Bool {
        guard !name.isEmpty else { return true }
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return false }
        let setns = unsafeBitCast(symbol, to: SetNS.self)
        let fd = open("/var/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return setns(fd, 0x4000_0000) == 0   // CLONE_NEWNET
    }

    /// Runs `body` on a new thread inside namespace `name`.
    static func run<T: Sendable>(in name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DetachedThread.start {
                guard enter(name) else {
                    print("FAIL cannot enter network namespace \(name) (run as root; ip netns add \(name))")
                    exit(1)
                }
                continuation.resume(returning: body())
            }
        }
    }
}

/// A connection that counts the share DATA bytes sent on it and keeps the first frame it sent (the HELLO).
final class RecordingConnection: LaneConnection {
    let base: any LaneConnection
    let dataBytes = Locked(0)
    let firstFrame = Locked<[UInt8]?>(nil)
    init(_ base: any LaneConnection) { self.base = base }
    var remote: String { base.remote }
    var frames: AsyncStream<[UInt8]> { base.frames }
    func send(_ frame: [UInt8]) async throws(LaneError) {
        firstFrame.withLock { if $0 == nil { $0 = frame } }
        if frame.count > 14, frame[1] == 0x31 { dataBytes.withLock { $0 += frame.count - 14 } }
        try await base.send(frame)
    }
    func close() { base.close() }
}

/// TCPLane in a network namespace, with hooks for the scenarios.
final class NamespacedLane: LaneNetwork {
    let namespace: String
    let policy = LanePolicy.production
    let connections = Locked<[RecordingConnection]>([])
    let onListen = Locked<(@Sendable (any LaneListener) -> Void)?>(nil)

    init(namespace: String) { self.namespace = namespace }

    func listen() async throws(LaneError) -> any LaneListener {
        let policy = self.policy
        let result: Result<any LaneListener, LaneError> = await Namespace.run(in: namespace) {
            do throws(LaneError) { return .success(try TCPLane(policy: policy).listenNow()) } catch { return .failure(error) }
        }
        let listener = try result.get()
        onListen.value?(listener)
        return listener
    }

    func connect(to endpoints: [LaneEndpoint], timeout: Duration) async throws(LaneError) -> any LaneConnection {
        let result = await Namespace.run(in: namespace) { TCPLane.connectBlocking(endpoints, timeout: timeout) }
        let connection = RecordingConnection(try result.get())
        connections.withLock { $0.append(connection) }
        return connection
    }

    var dataBytes: Int { connections.withLock { $0.reduce(0) { $0 + $1.dataBytes.value } } }
}

/// A radio whose links count the share DATA bytes written on them.
struct CountingRadio: RadioDecorator {
    let base: any Radio
    let dataBytes: Locked<Int>
    func connect(to peer: PeerAddress) async throws -> any RadioLink {
        CountingLink(base: try await base.connect(to: peer), dataBytes: dataBytes)
    }
}

struct CountingLink: RadioLink {
    let base: any RadioLink
    let dataBytes: Locked<Int>
    var peer: PeerAddress { base.peer }
    var mtu: Int { base.mtu }
    var maximumFrameLength: Int { base.maximumFrameLength }
    var transport: LinkTransport { base.transport }
    var setup: [LinkSetupPhase] { base.setup }
    var notifications: AsyncStream<[UInt8]> { base.notifications }
    func write(_ value: [UInt8]) async throws {
        if value.count > 14, value[1] == 0x31 { dataBytes.withLock { $0 += value.count - 14 } }
        try await base.write(value)
    }
    func disconnect() async { await base.disconnect() }
}

// MARK: - Hostile connections

/// Connects from namespace `namespace` to `endpoint`, sends `payload` (nil: nothing), and returns how long the
/// peer took to close, and how many bytes it said meanwhile.
func hostile(_ endpoint: LaneEndpoint, from namespace: String, payload: [UInt8]?) async -> (seconds: Double, said: Int)? {
    await Namespace.run(in: namespace) { () -> (Double, Int)? in
        guard case .success(let connection) = TCPLane.connectBlocking([endpoint], timeout: .seconds(2)) else {
            return nil
        }
        let started = ContinuousClock.now
        let box = Locked<(Double, Int)?>(nil)
        let done = Locked(false)
        Task {
            if let payload { try? await connection.send(payload) }
            var said = 0
            for await frame in connection.frames { said += frame.count + 4 }
            box.value = ((ContinuousClock.now - started).timeInterval, said)
            done.value = true
        }
        while !done.value && (ContinuousClock.now - started) < .seconds(5) { usleep(10_000) }
        connection.close()
        return box.value ?? (5, 0)
    }
}

// MARK: - The run

func fail(_ reason: String) -> Never {
    print("FAIL \(reason)")
    exit(1)
}

func run(_ options: Options) async throws {
    let stores = try HandoffFixtures.pairedStores(["sender", "receiver"])
    let ether = InMemoryEther()
    var conditions = LinkConditions()
    conditions.channel = .open(maximumSDU: 8192)
    conditions.delay = .microseconds(Int64(8192 / options.bleRate * 1e6))
    await ether.setConditions(conditions)
    let senderLane = NamespacedLane(namespace: options.senderNamespace)
    let receiverLane = NamespacedLane(namespace: options.receiverNamespace)
    var base = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(["org.handoff.note"]))
    base.beaconRotationInterval = nil
    var senderConfiguration = base
    var receiverConfiguration = base
    if options.lane {
        senderConfiguration.fastLane = FastLane(network: senderLane)
        receiverConfiguration.fastLane = FastLane(network: receiverLane)
    }
    let radioBytes = Locked(0)
    let sender = try HandoffEngine(configuration: senderConfiguration, trust: stores[0],
                                   radio: CountingRadio(base: ether.makeRadio(address: "sim:sender"), dataBytes: radioBytes))
    let receiver = try HandoffEngine(configuration: receiverConfiguration, trust: stores[1],
                                     radio: ether.makeRadio(address: "sim:receiver"))
    try await sender.start()
    try await receiver.start()
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("lane-netns-\(getpid())")
    defer { try? FileManager.default.removeItem(at: work) }
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    var limits = ShareLimits()
    limits.maximumItemSize = 4 << 30
    limits.quota = 8 << 30
    let inbox = try ShareInbox(directory: work.appendingPathComponent("inbox"), limits: limits)
    let sightings = await sender.sightings()
    await receiver.enableSharing(inbox: inbox, advertisePresence: true)
    var iterator = sightings.makeAsyncIterator()
    _ = await iterator.next()

    // The item: random bytes in a file.
    let source = work.appendingPathComponent("item.bin")
    guard FileManager.default.createFile(atPath: source.path, contents: nil) else { fail("cannot create \(source.path)") }
    let handle = try FileHandle(forWritingTo: source)
    var remaining = options.size
    while remaining > 0 {
        let chunk = min(remaining, 4 << 20)
        try handle.write(contentsOf: Data(Sodium.randomBytes(chunk)))
        remaining -= chunk
    }
    try handle.close()

    // Hostile connections: at each offer, before the engine hands its port to the sender, connect from the
    // sender's namespace with random bytes, with nothing, and with the HELLO of an earlier lane connection.
    let hostileResults = Locked<[(String, Double, Int)]>([])
    let hostileLaunched = Locked(0)
    let earlierHello = Locked<[UInt8]?>(nil)
    if options.hostile {
        receiverLane.onListen.value = { listener in
            guard let endpoint = listener.endpoints.first(where: { LanePolicy.production.admits($0) && $0.isIPv4 })
            else { return }
            let replay = earlierHello.value
            Task {
                var probes: [(String, [UInt8]?)] = [("random", Sodium.randomBytes(64)), ("silent", nil)]
                if let replay { probes.append(("replayed-hello", replay)) }
                hostileLaunched.withLock { $0 += probes.count }
                for (name, payload) in probes {
                    Task {
                        if let (seconds, said) = await hostile(endpoint, from: options.senderNamespace, payload: payload) {
                            hostileResults.withLock { $0.append((name, seconds, said)) }
                        } else {
                            hostileResults.withLock { $0.append((name, -1, 0)) }
                        }
                    }
                }
            }
        }
        // A first lane transfer, whose HELLO the hostile side then replays at the next offers.
        let warmup = OutgoingShare(metadata: ShareMetadata(kind: .file, name: "warmup.bin", mediaType: "application/octet-stream"),
                                   content: .bytes(Sodium.randomBytes(2 << 20)))
        try await sender.push(warmup, to: stores[1].identity.id)
        earlierHello.value = senderLane.connections.value.first?.firstFrame.value
        if earlierHello.value == nil { fail("the warm-up share never took the lane (no HELLO to replay)") }
    }
    let lanesBefore = senderLane.dataBytes
    let radioBefore = radioBytes.value

    let clock = ContinuousClock()
    let started = clock.now
    let firstByte = Locked<Duration?>(nil)
    let onLane = Locked<(Duration, Int)?>(nil)
    let cpuOnLane = Locked<Double?>(nil)
    let paths = Locked<[String]>([])
    let sentNow = Locked(0)
    let dropped = Locked(0)   // drops done, of options.dropAt
    let item = OutgoingShare(metadata: ShareMetadata(kind: .file, name: "item.bin", mediaType: "application/octet-stream"),
                             content: .file(source))
    try await sender.push(item, to: stores[1].identity.id, progress: { sent, total in
        sentNow.value = sent
        if sent > 0 { firstByte.withLock { if $0 == nil { $0 = clock.now - started } } }
        if let interface = options.dropInterface, paths.value.last == "tcp",
           dropped.withLock({ dropped in
               guard dropped < options.dropAt.count, Double(sent) >= options.dropAt[dropped] * Double(total) else {
                   return false
               }
               dropped += 1
               return true
           }) {
            let namespace = options.senderNamespace
            Task.detached {
                print("DROP \(interface) down at byte \(sent) for \(options.down) s")
                _ = shell("ip -n \(namespace) link set \(interface) down")
                try? await Task.sleep(for: .seconds(options.down))
                _ = shell("ip -n \(namespace) link set \(interface) up")
                print("DROP \(interface) up")
            }
        }
    }, path: { path in
        paths.withLock { $0.append(path.kind.rawValue) }
        if path.kind == .tcp {
            onLane.withLock { if $0 == nil { $0 = (clock.now - started, sentNow.value) } }
            cpuOnLane.withLock { if $0 == nil { $0 = processCPUSeconds() } }
        }
    })
    let elapsed = clock.now - started
    let cpuAtEnd = processCPUSeconds()

    // Byte for byte.
    guard let arrived = inbox.items().first(where: { $0.name == "item.bin" }) else { fail("the item did not arrive") }
    let expected = try Data(contentsOf: source)
    let got = try Data(contentsOf: inbox.dataURL(of: arrived.id))
    guard got == expected else { fail("the item arrived with different bytes (\(got.count) of \(expected.count))") }

    let overLane = senderLane.dataBytes - lanesBefore
    let overRadio = radioBytes.value - radioBefore
    let stream = options.size + (options.size + 4095) / 4096 * 16 + 64   // records' tags and the metadata record
    var fields = ["size=\(options.size)", "seconds=\(fmt(elapsed.timeInterval))",
                  "rate_MBps=\(fmt(Double(options.size) / elapsed.timeInterval / 1e6))",
                  "paths=\(paths.value.joined(separator: ","))", "lane_bytes=\(overLane)", "radio_bytes=\(overRadio)",
                  "resent_bytes=\(max(0, overLane + overRadio - stream))"]
    if let firstByte = firstByte.value { fields.append("first_byte_s=\(fmt(firstByte.timeInterval))") }
    if let (at, sent) = onLane.value {
        fields.append("switch_s=\(fmt(at.timeInterval - (firstByte.value?.timeInterval ?? 0)))")
        let laneSeconds = (elapsed - at).timeInterval
        fields.append("lane_rate_MBps=\(fmt(Double(options.size - sent) / laneSeconds / 1e6))")
        // Both engines' CPU (user and system, every thread of this one process) while the item was on the lane:
        // on a host whose cores are all busy, CPU per byte is what decides the rate.
        if let cpu = cpuOnLane.value, options.size > sent {
            fields.append("lane_cpu_s=\(fmt(cpuAtEnd - cpu))")
            fields.append("lane_cpu_ms_per_MB=\(fmt((cpuAtEnd - cpu) * 1000 / (Double(options.size - sent) / 1e6)))")
        }
    }
    if let maximum = options.maximumResent, overLane + overRadio - stream > maximum {
        fail("\(overLane + overRadio - stream) bytes crossed the network twice (at most \(maximum)): \(fields.joined(separator: " "))")
    }
    if options.lane && !paths.value.contains("tcp") { fail("the share never moved to the lane: \(fields.joined(separator: " "))") }
    if options.dropInterface != nil {
        fields.append("drops=\(dropped.value)")
        if dropped.value < options.dropAt.count { fail("\(dropped.value) of \(options.dropAt.count) drops happened") }
    }
    if options.hostile {
        // A silent connection is closed by the deadline, after the share may have finished: wait for every probe.
        let waited = clock.now
        while hostileResults.value.count < hostileLaunched.value && clock.now - waited < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let results = hostileResults.value
        if results.count < hostileLaunched.value {
            fail("\(hostileLaunched.value - results.count) hostile connections were still open 5 s after the share")
        }
        for (name, seconds, said) in results {
            fields.append("hostile_\(name)=\(fmt(seconds))s/\(said)B")
            if seconds < 0 || seconds > 1.5 || said != 0 {
                fail("the hostile connection '\(name)' was not closed within 1.5 s without a word: \(seconds) s, \(said) bytes")
            }
        }
        for probe in ["random", "silent", "replayed-hello"] where !results.contains(where: { $0.0 == probe }) {
            fail("no \(probe) connection was tried")
        }
    }
    print("RESULT " + fields.joined(separator: " "))
    await sender.stop()
    await receiver.stop()
}

func fmt(_ value: Double) -> String { String(format: "%.3f", value) }

/// User and system CPU seconds of this process so far, every thread.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

@discardableResult
func shell(_ command: String) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    do { try process.run() } catch { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
}

let options = parse()
do {
    try await run(options)
    exit(0)
} catch {
    fail("\(error)")
}
