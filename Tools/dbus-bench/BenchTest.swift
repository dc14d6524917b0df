import DBus

/// One benchmark test: a method of the benchmark service (bench/c/service.c).
enum BenchTest: String, Sendable {
    /// `Ping() -> ()`.
    case ping
    /// `Echo(s) -> s`.
    case echo
    /// `Sink(ay) -> u`: `size` bytes to the service.
    case sink
    /// `Source(u) -> ay`: `size` bytes from the service.
    case source
}

/// The benchmark service seen through our layer's public API, exactly as a user of the library would call it.
struct BenchService: Sendable {
    /// The text `Echo` sends and expects back.
    static let echoText = "hello, handoff"

    private let bench: Proxy
    private let payload: [UInt8]

    /// Prepares calls on `connection`; `size` is the byte count of every Sink and Source call.
    init(connection: Connection, size: Int) {
        bench = Proxy(
            connection: connection, destination: "org.handoff.Bench", path: "/org/handoff/Bench",
            interface: "org.handoff.Bench")
        payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    /// Makes one call of `test`, checks the reply and returns the payload bytes it moved.
    func call(_ test: BenchTest) async throws -> Int {
        switch test {
        case .ping:
            try await bench.call("Ping")
            return 0
        case .echo:
            let text = try await bench.call("Echo", arguments: [Self.echoText.dbusValue], returning: String.self)
            guard text == Self.echoText else { throw BenchFailure("echo: wrong text '\(text)'") }
            return 0
        case .sink:
            let length = try await bench.call("Sink", arguments: [payload.dbusValue], returning: UInt32.self)
            guard length == payload.count else { throw BenchFailure("sink: the service counted \(length) bytes") }
            return payload.count
        case .source:
            let wanted = UInt32(payload.count)
            let data = try await bench.call("Source", arguments: [wanted.dbusValue], returning: [UInt8].self)
            guard data.count == payload.count else { throw BenchFailure("source: got \(data.count) bytes") }
            return data.count
        }
    }
}
