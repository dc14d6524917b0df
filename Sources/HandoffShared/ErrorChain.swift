/// An error that wraps a lower one: the package's error types (HandoffError, RadioError, ServiceError, DaemonError,
/// DBusError, BlueZError) keep what they wrap as their `cause`, so the user sees why, not only what, failed.
package protocol CausedError: Error {
    /// The lower error this one wraps, if any.
    var cause: (any Error)? { get }
    /// This error alone, without its cause.
    var link: ErrorLink { get }
}

/// One error of a chain: what kind it is (`RadioError.failed`, `org.bluez.Error.Failed`) and its message.
package struct ErrorLink: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error's type and code, letters, digits, `.`, `_` and `-` only.
    package var kind: String
    /// The error's own message (no cause in it). May come from a peer: escape it before printing.
    package var message: String

    package init(kind: String, message: String) {
        self.kind = String(kind.unicodeScalars.filter(Self.isKindScalar).map(Character.init))
        self.message = message
    }

    /// `[kind] message`, the message escaped.
    package var description: String { "[\(kind)] " + ErrorChain.escaped(message) }

    private static func isKindScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
    }
}

/// An error known only by its chain's text, as it came over the bus: it keeps the types' names, not the types.
package struct ReportedError: CausedError, Sendable, CustomStringConvertible {
    package let link: ErrorLink
    package let cause: (any Error)?

    package init(_ link: ErrorLink, cause: (any Error)? = nil) {
        self.link = link
        self.cause = cause
    }

    /// The chain from its links, top first; nil when there are none.
    package init?(chain links: some Collection<ErrorLink>) {
        guard let first = links.first else { return nil }
        self.init(first, cause: ReportedError(chain: links.dropFirst()))
    }

    package var description: String { link.description }
}

/// Walking, printing and sending an error's chain of causes.
package enum ErrorChain {
    /// Deeper chains are cut here: a cycle or a hostile chain from the bus cannot make the walk endless.
    package static let maximumDepth = 16

    /// The error and each cause below it, top first.
    package static func links(of error: any Error) -> [ErrorLink] {
        var links: [ErrorLink] = []
        var next: (any Error)? = error
        while let current = next, links.count < maximumDepth {
            if let caused = current as? any CausedError {
                links.append(caused.link)
                next = caused.cause
            } else {
                links.append(ErrorLink(kind: String(describing: type(of: current)), message: String(describing: current)))
                next = nil
            }
        }
        return links
    }

    /// The causes below `error`, top first (empty when it wraps nothing).
    package static func causes(of error: any Error) -> [ErrorLink] { Array(links(of: error).dropFirst()) }

    /// The lines that follow an error's own message when it is printed: `caused by: [kind] message`, one a cause.
    package static func causeLines(_ causes: [ErrorLink], indent: String = "  ") -> [String] {
        causes.map { "\(indent)caused by: \($0)" }
    }

    /// A message and its causes in one text, for logs: `message (caused by: [kind] m; caused by: ...)`.
    package static func text(_ error: any Error) -> String {
        let causes = causes(of: error)
        let head = (error as? any CausedError)?.link.message ?? String(describing: error)
        guard !causes.isEmpty else { return head }
        return head + " (" + causes.map { "caused by: \($0)" }.joined(separator: "; ") + ")"
    }

    /// Control characters and backslashes as `\u{1B}` and `\\`: text from a peer can neither end a line nor drive
    /// a terminal.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    // MARK: the bus form
    // A D-Bus error reply carries one string. The causes travel in it after the message, one line each:
    // "message\ncaused by: [kind] message". Each part is escaped first, so no part can hold a newline and a line
    // read back is one cause; a client that reads only the message sees the causes as more lines of it.

    private static let marker = "\ncaused by: ["

    /// The error reply's text: `message` escaped, then one line per cause.
    package static func busText(message: String, causes: [ErrorLink]) -> String {
        escaped(message) + causes.map { marker + $0.kind + "] " + escaped($0.message) }.joined()
    }

    /// The message and the causes read back from an error reply's text; a text without causes is all message.
    package static func parseBusText(_ text: String) -> (message: String, causes: [ErrorLink]) {
        let parts = text.split(separator: marker, omittingEmptySubsequences: false)
        guard parts.count > 1, let message = parts.first else { return (unescaped(text[...]), []) }
        var causes: [ErrorLink] = []
        for part in parts.dropFirst().prefix(maximumDepth) {
            guard let close = part.firstIndex(of: "]") else { return (unescaped(text[...]), []) }
            let rest = part[part.index(after: close)...]
            causes.append(ErrorLink(kind: String(part[..<close]), message: unescaped(rest.drop { $0 == " " })))
        }
        return (unescaped(message), causes)
    }

    /// ``escaped(_:)`` undone; a malformed escape stays as it is.
    package static func unescaped(_ text: Substring) -> String {
        var out = ""
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\" else { out.unicodeScalars.append(scalar); continue }
            if scalars.first == "\\" {
                scalars.removeFirst()
                out += "\\"
            } else if scalars.starts(with: "u{".unicodeScalars), let close = scalars.firstIndex(of: "}"),
                      let value = UInt32(Substring(scalars[scalars.index(scalars.startIndex, offsetBy: 2)..<close]), radix: 16),
                      let decoded = Unicode.Scalar(value)
            {
                out.unicodeScalars.append(decoded)
                scalars = scalars[scalars.index(after: close)...]
            } else {
                out += "\\"
            }
        }
        return out
    }
}
