import BlueZ
import HandoffKit

extension RadioError {
    /// Translates a BlueZ layer error met while doing `action` into the radio's four kinds.
    ///
    /// `fallback` is the kind used when the BlueZ error says nothing more specific: `.unreachable` while
    /// connecting, `.disconnected` while writing to a connected peer, `.failed` elsewhere.
    init(_ error: BlueZError, while action: String, fallback: Kind = .failed) {
        self.init(Self.kind(of: error, fallback: fallback), action, cause: error)
    }

    static func kind(of error: BlueZError, fallback: Kind) -> Kind {
        let code = error.code
        let text = error.message.lowercased()
        if code == .invalidValueLength || code.attCode == .invalidAttributeValueLength {
            return .valueTooLong
        }
        if code == .notConnected || text.contains("not connected") || text.contains("disconnected") {
            return .disconnected
        }
        if code == .unavailable(.deviceGone) || code == .doesNotExist || code == .connectionAttemptFailed
            || error.isConnectionAbortByLocal || text.contains("host is down") || text.contains("page timeout")
            || text.contains("connection refused") {
            return .unreachable
        }
        if code == .unavailable(.noBlueZ) || code == .unavailable(.noAdapter) || code == .unavailable(.poweredOff) {
            return fallback == .disconnected ? .disconnected : .failed
        }
        return fallback
    }
}
