import Foundation
import HandoffClient
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// The WebExtension native messaging protocol (Chromium and Firefox alike): each message is a 32-bit length in
/// the machine's own byte order, then that many bytes of UTF-8 JSON. The browser starts the host and speaks on
/// its standard input and output.
///
/// What arrives is from a browser extension, not from us: every length is bounded before anything is read, and
/// every message is checked before it reaches the daemon.
public enum NativeMessaging {
    /// The longest message read from the browser: a tab's title and URL fit many times over. The browser may send
    /// up to 64 MiB; a longer length than this ends the host with a clear error, since the stream cannot be
    /// resynchronised after a skipped message.
    public static let maximumIncoming = 64 * 1024
    /// The longest message the browser accepts from a host (Chromium: 1 MiB).
    public static let maximumOutgoing = 1024 * 1024

    /// `json` framed: its length in native byte order, then the bytes.
    /// - Throws: ``DesktopError/Code/refused`` when it is longer than the browser accepts.
    public static func frame(_ json: Data) throws(DesktopError) -> Data {
        guard json.count <= maximumOutgoing else {
            throw DesktopError(.refused, "a native message of \(json.count) bytes is longer than the browser accepts "
                + "(\(maximumOutgoing))")
        }
        var length = UInt32(json.count)
        var framed = withUnsafeBytes(of: &length) { Data($0) }
        framed.append(json)
        return framed
    }

    /// Takes framed messages out of bytes as they arrive, in any split.
    public struct Deframer: Sendable {
        private var buffer: [UInt8] = []

        /// An empty deframer.
        public init() {}

        /// Adds bytes read from the browser.
        public mutating func append(_ bytes: some Sequence<UInt8>) {
            buffer.append(contentsOf: bytes)
        }

        /// Whether a partial message is waiting for more bytes.
        public var hasPartialMessage: Bool { !buffer.isEmpty }

        /// The next whole message, or nil when more bytes are needed.
        /// - Throws: ``DesktopError/Code/refused`` for a length over ``maximumIncoming`` (nothing more can be read).
        public mutating func next() throws(DesktopError) -> Data? {
            guard buffer.count >= 4 else { return nil }
            var length: UInt32 = 0
            withUnsafeMutableBytes(of: &length) { target in
                for index in 0..<4 { target[index] = buffer[index] }
            }
            guard length <= UInt32(maximumIncoming) else {
                throw DesktopError(.refused, "the browser sent a message of \(length) bytes; at most "
                    + "\(maximumIncoming) are accepted")
            }
            let end = 4 + Int(length)
            guard buffer.count >= end else { return nil }
            let message = Data(buffer[4..<end])
            buffer.removeFirst(end)
            return message
        }
    }

    /// Reads framed messages from a descriptor (the host's standard input), one blocking read at a time on a thread
    /// of its own, never on Swift's cooperative pool.
    public struct Reader: Sendable {
        private let fd: Int32
        private let deframer = Locked(Deframer())

        /// A reader of `fd`.
        public init(fd: Int32) {
            self.fd = fd
        }

        /// The next message; nil when the browser closed the stream between messages.
        /// - Throws: ``DesktopError/Code/refused`` for an over-long length or a stream that ends inside a message.
        public func next() async throws(DesktopError) -> Data? {
            while true {
                if let message = try deframer.withLock({ (deframer) throws(DesktopError) in try deframer.next() }) {
                    return message
                }
                let chunk = await readChunk()
                guard let chunk else { throw DesktopError(.toolFailed, "cannot read from the browser: "
                    + String(cString: strerror(errno))) }
                if chunk.isEmpty {
                    if deframer.withLock({ $0.hasPartialMessage }) {
                        throw DesktopError(.refused, "the browser's stream ended inside a message")
                    }
                    return nil
                }
                deframer.withLock { $0.append(chunk) }
            }
        }

        /// One read(2) of up to 64 KiB; empty at end of file, nil on an error.
        private func readChunk() async -> [UInt8]? {
            let fd = self.fd
            return await withCheckedContinuation { continuation in
                DetachedThread.start {
                    var bytes = [UInt8](repeating: 0, count: 65_536)
                    var count = 0
                    repeat {
                        count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    } while count < 0 && errno == EINTR
                    continuation.resume(returning: count < 0 ? nil : Array(bytes.prefix(count)))
                }
            }
        }
    }
}

/// What the handoff WebExtension tells its native host: offer the focused tab, or withdraw it.
public enum BrowserTabMessage: Sendable, Equatable {
    /// The focused tab, to offer.
    case offer(url: String, title: String, incognito: Bool)
    /// The focused tab cannot be offered (a private window, another scheme): withdraw what was offered.
    case withdraw

    /// The longest title offered; a longer one is cut (a title is only shown).
    public static let maximumTitleLength = 300
    /// The longest URL offered.
    public static let maximumURLLength = 8 * 1024

    /// Parses a message: `{"type": "offer", "url": "…", "title": "…", "incognito": false}` or
    /// `{"type": "withdraw"}`.
    /// - Throws: ``DesktopError/Code/refused`` for anything else.
    public init(json: Data) throws(DesktopError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw DesktopError(.refused, "the message is not a JSON object")
        }
        switch fields["type"] as? String {
        case "offer":
            guard let url = fields["url"] as? String else {
                throw DesktopError(.refused, "an offer without a string 'url'")
            }
            let title = fields["title"] as? String ?? ""
            // Not saying is not saying no: a message that omits it is treated as private.
            let incognito = (fields["incognito"] as? Bool) ?? true
            self = .offer(url: url, title: title, incognito: incognito)
        case "withdraw":
            self = .withdraw
        case let other?:
            throw DesktopError(.refused, "unknown message type '\(ActivitySummary.printable(other))'")
        case nil:
            throw DesktopError(.refused, "the message has no string 'type'")
        }
    }

    /// The activity to offer for an `offer`, after the host's own checks (the extension makes them too: a
    /// modified or hostile extension still cannot offer a private tab or a `file:` URL).
    /// - Throws: ``DesktopError/Code/refused`` for a private tab, a URL that is not http or https with a host, or
    ///   one longer than ``maximumURLLength``; nil for `withdraw`.
    public func activity() throws(DesktopError) -> ActivityContent? {
        guard case .offer(let url, let title, let incognito) = self else { return nil }
        guard !incognito else { throw DesktopError(.refused, "a private window's tab is never offered") }
        guard url.utf8.count <= Self.maximumURLLength else {
            throw DesktopError(.refused, "the URL is longer than \(Self.maximumURLLength) bytes")
        }
        let link = try WebLink(url)
        guard link.isOpenable else {
            throw DesktopError(.refused, "only http and https pages are offered, not '\(link.scheme)'")
        }
        let cleaned = String(String.UnicodeScalarView(title.unicodeScalars.filter {
            $0.properties.generalCategory != .control
        }))
        let shown = cleaned.trimmingCharacters(in: .whitespaces)
        return link.activity(title: shown.isEmpty ? nil : String(shown.prefix(Self.maximumTitleLength)))
    }
}
