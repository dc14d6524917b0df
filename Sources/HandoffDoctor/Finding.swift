/// One thing `handoff doctor` checked: what it found, why it matters, and the exact fix.
public struct Finding: Sendable, Equatable, Codable {
    /// How bad a finding is. Only ``unsafe`` makes `handoff doctor` exit non-zero.
    public enum Severity: String, Sendable, Codable, Comparable, CaseIterable {
        /// As it should be.
        case ok
        /// Worth knowing; nothing to fix.
        case info
        /// handoff may not work, or works worse; nothing leaks.
        case warning
        /// A stranger in radio range, or another local user, can learn or change something they should not.
        case unsafe

        private var rank: Int {
            switch self {
            case .ok: 0
            case .info: 1
            case .warning: 2
            case .unsafe: 3
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// Which check produced it.
    public enum Check: String, Sendable, Codable, CaseIterable {
        case privacy
        case adapterName = "adapter-name"
        case discoverable
        case bluetoothd
        case adapterInUse = "adapter-in-use"
        case experimental
        case leCoC = "le-coc"
        case fastLane = "fast-lane"
        case busPolicy = "bus-policy"
        case stateDirectory = "state-directory"
    }

    public var check: Check
    public var severity: Severity
    /// What was found, in one sentence.
    public var summary: String
    /// Why it matters (empty when it does not).
    public var detail: String
    /// The exact fix: configuration lines or commands, one per element, in order (empty when nothing to do).
    public var fix: [String]

    public init(_ check: Check, _ severity: Severity, _ summary: String, detail: String = "", fix: [String] = []) {
        self.check = check
        self.severity = severity
        self.summary = summary
        self.detail = detail
        self.fix = fix
    }
}
