#if canImport(Glibc)
import Glibc
#endif
import HandoffShared

/// handoffd's signals, taken by one thread of its own in `sigwait(2)` rather than by handlers or Dispatch signal
/// sources: no Dispatch queue in the daemon means no Dispatch worker, and so no libdispatch workqueue monitor
/// ticking at 1 Hz (``LoopExecutor``). The thread sleeps until a signal comes.
///
/// - SIGTERM and SIGINT: the first one ends ``termination()``; the daemon then withdraws everything and leaves.
/// - SIGUSR1: runs the statistics handler, if one is set (bench/ and the VM scenarios read the line it logs).
///
/// `init` blocks the three signals in the calling thread, and a thread inherits its creator's mask, so it must run
/// before any other thread exists (first thing in `main.swift`); otherwise a thread that has them unblocked would
/// take them instead. handoffd starts no other program, so no child inherits the mask.
final class DaemonSignals: Sendable {
    private let terminations: AsyncStream<Int32>
    private let statistics = Locked<(@Sendable () -> Void)?>(nil)

    init() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGTERM, SIGINT, SIGUSR1] { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        terminations = stream
        DetachedThread.start { [statistics, set] in
            var waited = set
            while true {
                var number: Int32 = 0
                guard sigwait(&waited, &number) == 0 else { continue }
                if number == SIGUSR1 {
                    statistics.withLock { $0 }?()
                } else {
                    continuation.yield(number)
                }
            }
        }
    }

    /// What SIGUSR1 does from now on.
    func onStatistics(_ handler: @escaping @Sendable () -> Void) {
        statistics.withLock { $0 = handler }
    }

    /// The first of SIGTERM or SIGINT to arrive (SIGTERM if the stream ended, which it does not).
    func termination() async -> Int32 {
        for await number in terminations { return number }
        return SIGTERM
    }
}
