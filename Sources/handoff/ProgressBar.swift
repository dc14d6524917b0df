import Foundation
import HandoffClient

/// A one-line progress bar on standard error: `[#########           ]  45%  3.1/6.9 KB`.
///
/// `@unchecked Sendable`: progress callbacks may arrive on any thread, so the only mutable state (the last
/// drawn percentage) is guarded by a lock.
final class ProgressBar: @unchecked Sendable {
    private let terminal: Terminal
    private let enabled: Bool
    private let lock = NSLock()
    private var lastPercent = -1

    init(terminal: Terminal, enabled: Bool) {
        self.terminal = terminal
        self.enabled = enabled
    }

    func update(_ progress: ContinueProgress) {
        guard enabled, let fraction = progress.fraction else { return }
        let percent = Int(fraction * 100)
        let changed = lock.withLock {
            defer { lastPercent = percent }
            return percent != lastPercent
        }
        guard changed else { return }
        let filled = percent / 5
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled)
        let total = Double(progress.totalBytes ?? 0) / 1024
        let received = Double(progress.receivedBytes) / 1024
        terminal.rewriteLine("[\(bar)] \(percent)%  " + String(format: "%.1f/%.1f KB", received, total))
    }

    /// Ends the bar's line so a note can be written; the next update draws it again.
    func interrupt() {
        guard enabled, lock.withLock({ defer { lastPercent = -1 }; return lastPercent >= 0 }) else { return }
        terminal.err("\n")
    }

    func finish() {
        guard enabled, lock.withLock({ lastPercent >= 0 }) else { return }
        terminal.err("\n")
    }
}
