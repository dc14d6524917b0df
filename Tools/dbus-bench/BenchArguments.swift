/// The command line every benchmark client shares: `dbus-bench ADDRESS SECONDS WARMUP SIZE TESTS`
/// (see bench/README.md and bench/c/client.c).
struct BenchArguments: Sendable {
    /// The bus address, e.g. `unix:path=/tmp/bus`.
    let address: String
    /// Measured time per test.
    let seconds: Double
    /// Unmeasured time per test before the measurement.
    let warmup: Double
    /// Bytes per Sink/Source call.
    let size: Int
    /// The tests to run, in order.
    let tests: [BenchTest]

    /// The usage line printed on bad input.
    static let usage = "usage: dbus-bench ADDRESS SECONDS WARMUP SIZE TESTS  (TESTS: comma-separated ping,echo,sink,source)"

    /// Parses the arguments after the program name.
    init(_ arguments: [String]) throws(BenchFailure) {
        guard arguments.count == 5 else { throw BenchFailure(Self.usage) }
        guard let seconds = Double(arguments[1]), seconds > 0, let warmup = Double(arguments[2]), warmup >= 0,
            let size = Int(arguments[3]), size > 0, size <= Int(UInt32.max)
        else {
            throw BenchFailure("SECONDS and SIZE must be positive numbers, WARMUP not negative\n\(Self.usage)")
        }
        var tests: [BenchTest] = []
        for name in arguments[4].split(separator: ",") {
            guard let test = BenchTest(rawValue: String(name)) else {
                throw BenchFailure("unknown test '\(name)'\n\(Self.usage)")
            }
            tests.append(test)
        }
        self.address = arguments[0]
        self.seconds = seconds
        self.warmup = warmup
        self.size = size
        self.tests = tests
    }
}

/// Why the benchmark client stopped: bad arguments, a failed call or a wrong reply.
struct BenchFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the harness log.
    let message: String

    /// Creates a failure with a message.
    init(_ message: String) {
        self.message = message
    }

    /// The message.
    var description: String { message }
}
