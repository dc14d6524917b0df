import Foundation
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// Tells when something new is copied, from the desktop's own events, never by polling:
/// `wl-paste --watch` on Wayland, XFixes selection-owner events on X11 (``XFixesSelectionListener``).
public struct ClipboardWatcher: Sendable {
    /// One change of the clipboard.
    public struct Change: Sendable, Equatable {
        /// `CLIPBOARD_STATE` as wl-paste (2.2 and later) reports it: `data`, `nil`, `clear` or `sensitive`;
        /// nil when the tool does not say (X11, older wl-paste).
        public var state: String?

        /// Whether the desktop itself marked the copy as a secret.
        public var isSensitive: Bool { state == "sensitive" }
    }

    /// The clipboard watched.
    public let clipboard: DesktopClipboard

    /// Watches `clipboard`.
    public init(clipboard: DesktopClipboard) {
        self.clipboard = clipboard
    }

    /// Every change from now on, until the stream is dropped. On Wayland the first change is the clipboard as it
    /// was when watching started (wl-paste reports it). Finishes with an error when the watcher cannot run.
    public func changes() -> AsyncThrowingStream<Change, any Error> {
        switch clipboard.backend {
        case .wayland(_, let paste): return waylandChanges(paste)
        case .x11: return XFixesSelectionListener.changes(environment: clipboard.environment)
        }
    }

    /// wl-paste runs a fixed `sh -c` line on every change, which prints the state; the copied bytes it is handed
    /// are drained and dropped (they are read again, by type, when the change is offered).
    private func waylandChanges(_ paste: Tool) -> AsyncThrowingStream<Change, any Error> {
        let environment = clipboard.environment
        return AsyncThrowingStream { continuation in
            let running: Tool.Running
            do {
                running = try paste.start(
                    ["--watch", "sh", "-c", #"printf '%s\n' "${CLIPBOARD_STATE:--}"; cat >/dev/null"#],
                    environment: environment, keepsOutput: true)
            } catch {
                continuation.finish(throwing: error)
                return
            }
            continuation.onTermination = { _ in kill(running.pid, SIGTERM) }
            // A blocking reader for as long as wl-paste runs: a thread of its own, not a Dispatch worker (whose
            // first one starts libdispatch's 1 Hz workqueue monitor in this all-day process).
            DetachedThread.start {
                var pending = Data()
                while let reader = running.output {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending = Data(pending[pending.index(after: newline)...])
                        continuation.yield(Change(state: line == "-" ? nil : line))
                    }
                }
                let status = running.wait()
                continuation.finish(throwing: DesktopError(
                    .toolFailed, "wl-paste --watch exited (status \(status)); is the compositor gone?"))
            }
        }
    }
}
