/// What kind of thing a push carries.
package enum ShareKind: String, Codable, Sendable, CaseIterable {
    /// A file's bytes.
    case file
    /// UTF-8 text.
    case text
    /// A URL (its absolute string, UTF-8).
    case url

    var byte: UInt8 {
        switch self {
        case .file: 0
        case .text: 1
        case .url: 2
        }
    }

    init?(byte: UInt8) {
        switch byte {
        case 0: self = .file
        case 1: self = .text
        case 2: self = .url
        default: return nil
        }
    }
}

/// The first (metadata) record of a push: what the item is and what its sender called it. The receiver never
/// trusts the name; it sanitises it (`ShareName`).
///
///     kind(1) ‖ nameLength(2) ‖ UTF-8 name ‖ mediaTypeLength(1) ‖ ASCII media type
package struct ShareMetadata: Sendable, Equatable, Codable {
    /// The item's kind.
    package var kind: ShareKind
    /// The name on the sending side (a file's last path component, or a name the sender chose).
    package var name: String
    /// The media type, `application/octet-stream` when unknown.
    package var mediaType: String

    /// Longest name the sender may send, in UTF-8 bytes (the receiver shortens it further).
    package static let maximumNameLength = 1024

    /// Creates metadata.
    package init(kind: ShareKind, name: String, mediaType: String) {
        self.kind = kind
        self.name = name
        self.mediaType = mediaType
    }

    var encoded: [UInt8] {
        var w = ByteWriter()
        let name = Array(self.name.utf8.prefix(Self.maximumNameLength))
        let type = Array(mediaType.utf8.prefix(255))
        w.u8(kind.byte); w.u16(UInt16(name.count)); w.raw(name); w.u8(UInt8(type.count)); w.raw(type)
        return w.bytes
    }

    init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard let k = r.u8(), let kind = ShareKind(byte: k), let n = r.u16(), Int(n) <= Self.maximumNameLength,
              let name = r.take(Int(n)), let t = r.u8(), let type = r.take(Int(t)), r.remaining == 0 else { return nil }
        // An invalid UTF-8 name is repaired (the sanitiser sees U+FFFD), a media type must be printable ASCII.
        guard type.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.init(kind: kind, name: String(decoding: name, as: UTF8.self),
                  mediaType: type.isEmpty ? "application/octet-stream" : String(decoding: type, as: UTF8.self))
    }
}
