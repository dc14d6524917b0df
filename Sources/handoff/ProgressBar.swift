import Foundation
import HandoffClient
import HandoffShared

/// A one-line progress bar on standard error: `[#########           ]  45%  3.1/6.9 KB`.
///
/// Progress callbacks may arrive on any thread; the one mutable state, the last drawn percentage (-1: none
/// drawn), is in the package's lock box.
final class ProgressBar: Sendable {
    private let terminal: Terminal
    private let enabled: Bool
    private let lastPercent = Locked(-1)

    init(terminal: Terminal, enabled: Bool) {
        self.terminal = terminal
        self.enabled = enabled
    }

    func update(_ progress: ContinueProgress) {
        guard enabled, let fraction = progress.fraction else { return }
        let percent = Int(fraction * 100)
        let changed = lastPercent.withLock { last in
            defer { last = percent }
            return percent != last
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
        guard enabled, lastPercent.withLock({ last in defer { last = -1 }; return last >= 0 }) else { return }
        terminal.err("\n")
    }

    func finish() {
        guard enabled, lastPercent.withLock({ $0 >= 0 }) else { return }
        terminal.err("\n")
    }
}
