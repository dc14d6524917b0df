import Foundation

/// The one JSON style of `--json` output: sorted keys, ISO 8601 dates, no escaped slashes.
enum JSONOutput {
    /// Pretty-printed JSON and a newline, for commands that print one document.
    static func document(_ value: some Encodable) throws -> String {
        try encode(value, pretty: true)
    }

    /// One compact JSON object and a newline, for streams (JSON Lines).
    static func line(_ value: some Encodable) throws -> String {
        try encode(value, pretty: false)
    }

    private static func encode(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] :
            [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
