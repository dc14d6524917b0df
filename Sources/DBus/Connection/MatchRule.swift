/// A typed D-Bus match rule, the filter a bus applies before routing signals to a subscriber.
///
/// Build one by chaining, then pass it to ``Connection/signals(matching:)``:
///
/// ```swift
/// let rule = MatchRule.signal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
///     .sender("org.bluez")
///     .pathNamespace("/org/bluez/hci0")
///     .argument(0, "org.bluez.Device1")
/// ```
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The message kind to match: `.signal` unless changed; nil matches every kind.
    public var kind: Message.Kind? = .signal
    /// The sender, a unique or well-known name.
    public var sender: BusName?
    /// The interface.
    public var interface: InterfaceName?
    /// The signal (or method) name.
    public var member: MemberName?
    /// The exact object path.
    public var path: ObjectPath?
    /// The object path or any path below it.
    public var pathNamespace: ObjectPath?
    /// The destination (for unicast signals).
    public var destination: BusName?
    /// String arguments that must be equal: index (0…63) → text.
    public var arguments: [Int: String] = [:]

    /// A rule matching every signal.
    public init() {}

    /// A signal rule with the common fields.
    public static func signal(
        sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil, path: ObjectPath? = nil
    ) -> MatchRule {
        var rule = MatchRule()
        rule.sender = sender
        rule.interface = interface
        rule.member = member
        rule.path = path
        return rule
    }

    /// The same rule restricted to a sender.
    public func sender(_ sender: BusName) -> MatchRule { with { $0.sender = sender } }
    /// The same rule restricted to an interface.
    public func interface(_ interface: InterfaceName) -> MatchRule { with { $0.interface = interface } }
    /// The same rule restricted to a member.
    public func member(_ member: MemberName) -> MatchRule { with { $0.member = member } }
    /// The same rule restricted to one object path.
    public func path(_ path: ObjectPath) -> MatchRule { with { $0.path = path } }
    /// The same rule restricted to a path and the paths below it.
    public func pathNamespace(_ path: ObjectPath) -> MatchRule { with { $0.pathNamespace = path } }
    /// The same rule requiring string argument `index` to equal `text`.
    public func argument(_ index: Int, _ text: String) -> MatchRule { with { $0.arguments[index] = text } }

    private func with(_ change: (inout MatchRule) -> Void) -> MatchRule {
        var copy = self
        change(&copy)
        return copy
    }

    /// The rule in the bus's text syntax, e.g. `type='signal',interface='org.x.Y',arg0='z'`.
    public var description: String {
        var parts: [String] = []
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value.replacingApostrophes())'")
        }
        switch kind {
        case .signal?: add("type", "signal")
        case .methodCall?: add("type", "method_call")
        case .methodReturn?: add("type", "method_return")
        case .error?: add("type", "error")
        case .unknown?, nil: break
        }
        add("sender", sender?.rawValue)
        add("interface", interface?.rawValue)
        add("member", member?.rawValue)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("destination", destination?.rawValue)
        for index in arguments.keys.sorted() { add("arg\(index)", arguments[index]) }
        return parts.joined(separator: ",")
    }

    /// Whether `message` satisfies the rule, as the bus would decide. A well-known `sender` is compared through
    /// `owners`, the connection's record of which unique name owns each watched well-known name.
    func matches(_ message: Message, owners: [BusName: BusName], arguments decoded: () -> [Value]) -> Bool {
        if let kind, message.kind != kind { return false }
        if let sender, let actual = message.sender, actual != sender {
            guard !sender.rawValue.hasPrefix(":"), let owner = owners[sender], owner == actual else { return false }
        }
        return matchesRest(message, decoded)
    }

    private func matchesRest(_ message: Message, _ decoded: () -> [Value]) -> Bool {
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let actual = message.path, actual == pathNamespace || pathNamespace.isAncestor(of: actual) else {
                return false
            }
        }
        if let destination, message.destination != destination { return false }
        if !arguments.isEmpty {
            let values = decoded()
            for (index, text) in arguments {
                guard index < values.count else { return false }
                switch values[index] {
                case .string(let actual) where actual == text: continue
                case .objectPath(let actual) where actual.rawValue == text: continue
                default: return false
                }
            }
        }
        return true
    }
}

extension String {
    /// Escapes `'` for a match rule value: close the quote, an escaped apostrophe, reopen.
    fileprivate func replacingApostrophes() -> String {
        guard contains("'") else { return self }
        var out = ""
        for character in self {
            if character == "'" { out += "'\\''" } else { out.append(character) }
        }
        return out
    }
}
