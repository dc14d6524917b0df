import FoundationEssentials

/// One value of a continued activity's userInfo with its type, as the other device offered it: the property-list
/// types (Docs/protocol.md), beside ``ActivityContent/userInfo``'s text.
///
/// Encoded (`Encodable`), each value is the JSON type closest to its own, the rule of `handoff continue --json`
/// (Docs/usage.md, "JSON output"): a string, integer, real and boolean as themselves (a real that is not finite as
/// the string `nan`, `inf` or `-inf`, which JSON has no number for); a date as an ISO 8601 UTC string, with
/// milliseconds when it has a fraction of a second; data as a base64 string; a URL as its absolute string; arrays
/// and dictionaries nested. Decoded (`Decodable`), JSON's own types come back (boolean, integer, real, string,
/// array, object); a date, data or URL comes back as the string it was written as.
public enum UserInfoValue: Sendable, Hashable, Codable {
    /// A string.
    case string(String)
    /// A signed 64-bit integer.
    case integer(Int64)
    /// A double-precision real.
    case real(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// A URL.
    case url(URL)
    /// An ordered list of values.
    case array([UserInfoValue])
    /// A dictionary with string keys.
    case dictionary([String: UserInfoValue])

    /// The value as JSON writes it (above).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let string): try container.encode(string)
        case .integer(let integer): try container.encode(integer)
        case .real(let real): try real.isFinite ? container.encode(real) : container.encode(String(real))
        case .bool(let bool): try container.encode(bool)
        case .date(let date): try container.encode(Self.iso8601(date))
        case .data(let data): try container.encode(data.base64EncodedString())
        case .url(let url): try container.encode(url.absoluteString)
        case .array(let items): try container.encode(items)
        case .dictionary(let entries): try container.encode(entries)
        }
    }

    /// A JSON value as its own type (above).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let items = try? container.decode([UserInfoValue].self) {
            self = .array(items)
        } else {
            self = .dictionary(try container.decode([String: UserInfoValue].self))
        }
    }

    /// `date` in ISO 8601 UTC: whole seconds as `2026-12-07T16:27:13Z`, else with milliseconds.
    private static func iso8601(_ date: Date) -> String {
        let whole = date.timeIntervalSinceReferenceDate.rounded(.down) == date.timeIntervalSinceReferenceDate
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: !whole))
    }
}
