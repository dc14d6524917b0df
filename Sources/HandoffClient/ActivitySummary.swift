/// One activity another device offers, as listed by `handoff continue --json` and `handoff watch --json`.
///
/// JSON (keys sorted): `{"ageSeconds":12.5,"device":"laptop","id":"…","sizeBytes":345,"title":"Groceries",
/// "type":"org.handoff.note"}`.
public struct ActivitySummary: Sendable, Equatable, Codable {
    /// The daemon's identifier, used to continue it.
    public var id: ActivityID
    /// The activity type (`org.handoff.note`).
    public var type: String
    /// Its title.
    public var title: String
    /// The name of the device offering it.
    public var device: String
    /// Seconds since the device last updated it.
    public var age: Double
    /// The payload size in bytes, as announced by the device.
    public var size: Int

    /// Creates a summary.
    public init(id: ActivityID, type: String, title: String, device: String, age: Double, size: Int) {
        self.id = id
        self.type = type
        self.title = title
        self.device = device
        self.age = age
        self.size = size
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, title, device
        case age = "ageSeconds"
        case size = "sizeBytes"
    }
}
