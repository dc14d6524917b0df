import Foundation
import HandoffClient

/// One clipboard entry handoff carries: UTF-8 text or a PNG image.
public struct ClipboardItem: Sendable, Equatable {
    /// The media types handoff carries.
    public enum MediaType: String, Sendable, CaseIterable {
        /// UTF-8 text.
        case text = "text/plain"
        /// A PNG image.
        case png = "image/png"
    }

    /// userInfo keys of an `org.handoff.clipboard` activity.
    public enum Key {
        /// The media type: `text/plain` or `image/png`.
        public static let mediaType = "mediaType"
        /// The text, for `text/plain`.
        public static let text = "text"
        /// The bytes in base64, for `image/png` (userInfo values are strings over the daemon's API).
        public static let base64 = "base64"
    }

    /// How long a clipboard activity is offered (Universal Clipboard's lifetime); the daemon enforces it.
    public static let lifetime: Duration = .seconds(120)

    /// The media type.
    public var mediaType: MediaType
    /// The bytes: UTF-8 for text.
    public var data: Data

    /// Creates an item; text must be UTF-8.
    public init(mediaType: MediaType, data: Data) {
        self.mediaType = mediaType
        self.data = data
    }

    /// Text as a clipboard item.
    public static func text(_ text: String) -> ClipboardItem {
        ClipboardItem(mediaType: .text, data: Data(text.utf8))
    }

    /// What standard input holds: a PNG image when it starts with PNG's signature, else UTF-8 text.
    /// - Throws: ``DesktopError/Code/nothingToCopy`` for empty input or bytes that are neither.
    public static func sniffing(_ data: Data) throws(DesktopError) -> ClipboardItem {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return ClipboardItem(mediaType: .png, data: data)
        }
        guard !data.isEmpty else { throw DesktopError(.nothingToCopy, "standard input is empty; nothing to copy") }
        guard String(data: data, encoding: .utf8) != nil else {
            throw DesktopError(.nothingToCopy, "standard input is neither UTF-8 text nor a PNG image")
        }
        return ClipboardItem(mediaType: .text, data: data)
    }

    /// "Text, 12 characters" or "PNG image, 3.4 KB": a title that says what it is without showing it.
    public var title: String {
        switch mediaType {
        case .text: "Text, \(String(decoding: data, as: UTF8.self).count) characters"
        case .png: String(format: "PNG image, %.1f KB", Double(data.count) / 1024)
        }
    }

    /// The item as an `org.handoff.clipboard` activity.
    public var activity: ActivityContent {
        var info = [Key.mediaType: mediaType.rawValue]
        switch mediaType {
        case .text: info[Key.text] = String(decoding: data, as: UTF8.self)
        case .png: info[Key.base64] = data.base64EncodedString()
        }
        return ActivityContent(type: ActivityKind.clipboard.type, title: title, userInfo: info)
    }

    /// The item another device offered.
    /// - Throws: ``DesktopError/Code/refused`` for another type, an unknown media type or bad base64.
    public init(_ content: ActivityContent) throws(DesktopError) {
        guard content.type == ActivityKind.clipboard.type else {
            throw DesktopError(.refused, "\(content.type) is not a clipboard activity")
        }
        let name = content.userInfo[Key.mediaType] ?? ""
        switch MediaType(rawValue: name) {
        case .text?:
            guard let text = content.userInfo[Key.text] else {
                throw DesktopError(.refused, "the clipboard activity has no text")
            }
            self.init(mediaType: .text, data: Data(text.utf8))
        case .png?:
            guard let data = content.userInfo[Key.base64].flatMap({ Data(base64Encoded: $0) }) else {
                throw DesktopError(.refused, "the clipboard image is not valid base64")
            }
            self.init(mediaType: .png, data: data)
        case nil:
            throw DesktopError(.refused, "the clipboard holds '\(ActivitySummary.printable(name))', which handoff "
                + "does not paste (only text/plain and image/png)")
        }
    }
}
