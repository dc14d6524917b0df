// The baseline of bench/idle-wakeups.sh: Swift concurrency on its default executor (Dispatch's global queues, as
// handoffd runs today). A few tasks run, then the process sleeps in `Task.sleep` while it is measured.
import Dispatch
import Glibc

@main struct DefaultExecutorIdle {
    static func main() async {
        for _ in 0..<4 { Task { _ = getpid() } }
        DispatchQueue(label: "bench.idle").async { _ = getpid() }   // as TerminationSignals and L2CAP do
        try? await Task.sleep(for: .milliseconds(500))
        print("idle \(getpid())")
        fflush(stdout)
        try? await Task.sleep(for: .seconds(Int(CommandLine.arguments.dropFirst().first ?? "12") ?? 12))
    }
}
