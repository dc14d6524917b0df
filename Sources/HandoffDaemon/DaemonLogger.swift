import Foundation

/// Where the daemon writes what it does: one line per event. `standardError` prefixes a UTC timestamp.
public struct DaemonLogger: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A logger writing each line to `sink`.
    public init(_ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Logs one line.
    public func log(_ line: String) {
        sink(line)
    }

    /// Lines on standard error, `2026-11-29T21:04:05Z handoffd: …`.
    public static let standardError = DaemonLogger { line in
        let stamp = ISO8601DateFormatter().string(from: Date())
        FileHandle.standardError.write(Data("\(stamp) handoffd: \(line)\n".utf8))
    }

    /// Discards everything.
    public static let silent = DaemonLogger { _ in }
}
