import DBus
import Glibc

/// `dbus-bench`: the Swift client of the D-Bus benchmark (`make bench`, bench/README.md).
///
/// Usage: `dbus-bench ADDRESS SECONDS WARMUP SIZE TESTS`. For each test it calls the benchmark service for
/// WARMUP seconds unmeasured, then for SECONDS measured, one call outstanding at a time, and prints one JSON
/// line: `{"test": ..., "calls": N, "seconds": T, "bytes": B, "cpu": C}` (C: CPU time of the whole process,
/// all threads, during the measured calls). A failed call or a wrong reply ends it with status 1.
@main
struct DBusBench {
    static func main() async {
        let arguments: BenchArguments
        do {
            arguments = try BenchArguments(Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail("\(error)", status: 2)
        }
        do {
            let connection = try Connection(.address(arguments.address))
            let service = BenchService(connection: connection, size: arguments.size)
            // EXECUTOR=connection: the calls run on the connection's own thread (Connection.executor, public API),
            // so a reply needs no thread switch; the default is the global concurrent executor, as most code runs.
            if getenv("EXECUTOR").map({ String(cString: $0) }) == "connection" {
                try await withTaskExecutorPreference(connection.executor) {
                    for test in arguments.tests {
                        print(try await measure(test, on: service, arguments: arguments))
                    }
                }
            } else {
                for test in arguments.tests {
                    print(try await measure(test, on: service, arguments: arguments))
                }
            }
            connection.close()
        } catch {
            fail("swift client: \(error)", status: 1)
        }
    }

    /// Prints `message` on standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        var line = message + "\n"
        line.withUTF8 { buffer in _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
        exit(status)
    }

    /// Warms up, then calls `test` for the measured time; returns the JSON result line.
    static func measure(_ test: BenchTest, on service: BenchService, arguments: BenchArguments) async throws
        -> String
    {
        let clock = ContinuousClock()
        let warmupEnd = clock.now.advanced(by: .seconds(arguments.warmup))
        while clock.now < warmupEnd {
            _ = try await service.call(test)
        }
        var calls = 0
        var bytes = 0
        let cpuStart = cpuSeconds()
        let start = clock.now
        var elapsed = 0.0
        repeat {
            bytes += try await service.call(test)
            calls += 1
            elapsed = seconds(start.duration(to: clock.now))
        } while elapsed < arguments.seconds
        let cpu = cpuSeconds() - cpuStart
        return "{\"test\": \"\(test.rawValue)\", \"calls\": \(calls), \"seconds\": \(elapsed), \"bytes\": \(bytes), "
            + "\"cpu\": \(cpu)}"
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// User plus system CPU time of this process so far, all threads.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}
