import Foundation
import HandoffClient

/// A web page handed off: an `org.handoff.web` activity whose `url` the daemon also sets as the activity's
/// `webpageURL` (Apple's `NSUserActivityTypeBrowsingWeb`).
public struct WebLink: Sendable, Equatable {
    /// userInfo keys of an `org.handoff.web` activity.
    public enum Key {
        /// The page's absolute URL; the daemon makes it the activity's `webpageURL`.
        public static let url = "url"
    }

    /// The schemes that are ever opened; any other is shown, never opened.
    public static let openableSchemes: Set<String> = ["http", "https"]

    /// The URL as given.
    public let text: String
    /// Its scheme, lower-cased.
    public let scheme: String

    /// A link from text.
    /// - Throws: ``DesktopError/Code/refused`` for text with control characters or spaces, or without a scheme.
    public init(_ text: String) throws(DesktopError) {
        guard !text.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control || $0.properties.isWhitespace
        }) else {
            throw DesktopError(.refused, "'\(ActivitySummary.printable(text))' has control characters or spaces; "
                + "it is not a URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw DesktopError(.refused, "'\(text)' is not an absolute URL (such as https://example.org/)")
        }
        self.text = text
        self.scheme = scheme
    }

    /// Whether `handoff continue` opens it: http and https only, with a host.
    public var isOpenable: Bool {
        Self.openableSchemes.contains(scheme) && !(URL(string: text)?.host ?? "").isEmpty
    }

    /// The activity, titled `title` (default: the URL).
    public func activity(title: String? = nil) -> ActivityContent {
        ActivityContent(type: ActivityKind.web.type, title: title ?? text, userInfo: [Key.url: text])
    }

    /// The link another device offered.
    /// - Throws: ``DesktopError/Code/refused`` for another type or a missing or malformed URL.
    public init(_ content: ActivityContent) throws(DesktopError) {
        guard content.type == ActivityKind.web.type, let text = content.userInfo[Key.url] else {
            throw DesktopError(.refused, "the activity carries no web page URL")
        }
        try self.init(text)
    }
}

/// Opens links with the desktop's `xdg-open` (which honours the user's default browser, `BROWSER`, and
/// `x-scheme-handler/https` in mimeapps.list).
public struct LinkOpener: Sendable {
    /// The environment xdg-open runs with.
    public let environment: [String: String]

    /// An opener for the desktop `environment` describes.
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Opens `link` if it is openable.
    /// - Throws: ``DesktopError/Code/refused`` for any scheme but http and https (nothing is run);
    ///   ``DesktopError/Code/toolFailed`` when xdg-open is missing or fails.
    public func open(_ link: WebLink) async throws(DesktopError) {
        guard link.isOpenable else {
            throw DesktopError(.refused, "not opened: only http and https links are opened, this one is "
                + "'\(link.scheme)'")
        }
        guard let xdgOpen = Tool.find("xdg-open", in: environment) else {
            throw DesktopError(.toolFailed, "xdg-open is not on PATH (install xdg-utils)")
        }
        // One argument, never a shell word; "--" is not understood by xdg-open, and the scheme check means the
        // URL starts with http, never with "-".
        // Its output goes nowhere: a browser it starts inherits it and may outlive us.
        let result = try await xdgOpen.run([link.text], environment: environment, keepsOutput: false)
        guard result.status == 0 else {
            throw DesktopError(.toolFailed, "xdg-open could not open the link (exit \(result.status): "
                + Self.meaning(of: result.status) + ")")
        }
    }

    /// What xdg-open's exit statuses mean (xdg-open(1)).
    static func meaning(of status: Int32) -> String {
        switch status {
        case 1: "syntax error"
        case 2: "a file does not exist"
        case 3: "a required tool could not be found"
        case 4: "the action failed, or no application handles the link"
        default: "unknown error"
        }
    }
}
