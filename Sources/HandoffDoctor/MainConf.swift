import Foundation

/// bluetoothd's `/etc/bluetooth/main.conf`: an INI file of `[Section]` headers and `Key = value` lines, `#` starting a
/// comment line. Only what `handoff doctor` reads is interpreted; everything else is kept as text.
public struct MainConf: Sendable, Equatable {
    /// Values by section, then by key, as written (trimmed).
    public private(set) var sections: [String: [String: String]] = [:]

    /// Parses the text of a main.conf. Malformed lines are skipped, as bluetoothd's GKeyFile would reject the
    /// whole file: ``problems`` lists them.
    public init(parsing text: String) {
        var section = ""
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                problems.append("line \(number + 1): '\(line)' is neither a [Section] nor Key = value")
                continue
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[section, default: [:]][key] = value
        }
    }

    /// Lines that could not be read.
    public private(set) var problems: [String] = []

    /// A value, if set.
    public subscript(section: String, key: String) -> String? {
        sections[section]?[key]
    }

    /// `[General] Privacy`; bluetoothd's default is `off`.
    public var privacy: String { self["General", "Privacy"]?.lowercased() ?? "off" }

    /// Whether `privacy` asks for resolvable private addresses (`device`, `network`/`on`, and the `limited-` forms).
    public var privacyEnabled: Bool {
        ["device", "network", "on", "limited-device", "limited-network"].contains(privacy)
    }

    /// `[General] Experimental = true` (the same as `bluetoothd -E`).
    public var experimental: Bool { Self.isTrue(self["General", "Experimental"]) }

    /// `[General] DiscoverableTimeout` in seconds (bluetoothd's default 180; 0 means forever), nil when unreadable.
    public var discoverableTimeout: Int? {
        guard let text = self["General", "DiscoverableTimeout"] else { return 180 }
        return Int(text)
    }

    /// A GKeyFile boolean: true/false or 1/0.
    static func isTrue(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return value == "true" || value == "1"
    }
}
