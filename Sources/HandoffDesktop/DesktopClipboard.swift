import Foundation

/// The desktop's clipboard, through its own tools, found at run time: `wl-copy`/`wl-paste` (wl-clipboard) when
/// `WAYLAND_DISPLAY` is set, else `xclip` when `DISPLAY` is set.
public struct DesktopClipboard: Sendable {
    /// Which desktop, and its tools.
    public enum Backend: Sendable, Equatable {
        /// A Wayland compositor, through wl-clipboard.
        case wayland(copy: Tool, paste: Tool)
        /// An X server, through xclip (the CLIPBOARD selection).
        case x11(xclip: Tool)
    }

    /// The MIME type password managers add to a secret (KeePassXC, KDE's Klipper honour it).
    public static let passwordManagerHint = "x-kde-passwordManagerHint"

    /// The backend in use.
    public let backend: Backend
    /// The environment the tools run with (it carries WAYLAND_DISPLAY or DISPLAY).
    public let environment: [String: String]

    /// The clipboard of the desktop `environment` describes.
    /// - Throws: ``DesktopError/Code/noClipboard``, saying what is missing.
    public init(environment: [String: String]) throws(DesktopError) {
        self.environment = environment
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty {
            guard let copy = Tool.find("wl-copy", in: environment), let paste = Tool.find("wl-paste", in: environment)
            else {
                throw DesktopError(.noClipboard, "WAYLAND_DISPLAY is set but wl-copy/wl-paste are not on PATH "
                    + "(install wl-clipboard)")
            }
            backend = .wayland(copy: copy, paste: paste)
        } else if let display = environment["DISPLAY"], !display.isEmpty {
            guard let xclip = Tool.find("xclip", in: environment) else {
                throw DesktopError(.noClipboard, "DISPLAY is set but xclip is not on PATH (install xclip)")
            }
            backend = .x11(xclip: xclip)
        } else {
            throw DesktopError(.noClipboard, "no desktop clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set")
        }
    }

    /// "Wayland (wl-clipboard)" or "X11 (xclip)".
    public var name: String {
        switch backend {
        case .wayland: "Wayland (wl-clipboard)"
        case .x11: "X11 (xclip)"
        }
    }

    /// The media types (X11: targets) the clipboard offers now; empty when nothing is copied.
    public func types() async throws(DesktopError) -> [String] {
        let result: Tool.Result
        switch backend {
        case .wayland(_, let paste): result = try await paste.run(["--list-types"], environment: environment)
        case .x11(let xclip):
            result = try await xclip.run(["-selection", "clipboard", "-o", "-t", "TARGETS"], environment: environment)
        }
        // Both tools exit 1 with a message ("Nothing is copied", "target TARGETS not available") when empty.
        guard result.status == 0 else { return [] }
        return String(decoding: result.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// Whether a copy with these types is a secret a password manager marked; it is never offered.
    public static func isSensitive(_ types: [String]) -> Bool {
        types.contains(passwordManagerHint)
    }

    /// What is copied now: the PNG image if one is offered, else the text.
    ///
    /// The types and the content come from separate runs of the tool, so a copy can land between them: a password
    /// manager's secret copied after the types were read would be read as the content. So the types are read again
    /// after the content, and a change between the two reads refuses the copy (a new one will be seen).
    /// - Throws: ``DesktopError/Code/nothingToCopy`` when the clipboard is empty, holds neither, is a secret, or
    ///   changed while it was read.
    public func read() async throws(DesktopError) -> ClipboardItem {
        let offered = try await types()
        let item = try await content(offered: offered)
        let after = try await types()
        guard after == offered else {
            throw DesktopError(.nothingToCopy, Self.isSensitive(after)
                ? "a secret (\(Self.passwordManagerHint)) was copied while the clipboard was read; it is not offered"
                : "the clipboard changed while it was read; it is not offered")
        }
        return item
    }

    /// The content of a clipboard that offered `offered`, checked as `read` describes.
    private func content(offered: [String]) async throws(DesktopError) -> ClipboardItem {
        guard !offered.isEmpty else { throw DesktopError(.nothingToCopy, "the clipboard is empty") }
        guard !Self.isSensitive(offered) else {
            throw DesktopError(.nothingToCopy, "the clipboard holds a secret (\(Self.passwordManagerHint)); "
                + "it is not offered")
        }
        if offered.contains(ClipboardItem.MediaType.png.rawValue) {
            return ClipboardItem(mediaType: .png, data: try await fetch(ClipboardItem.MediaType.png.rawValue))
        }
        let textTypes = ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT"]
        guard let type = textTypes.first(where: offered.contains) else {
            throw DesktopError(.nothingToCopy, "the clipboard holds none of text/plain, image/png (it offers "
                + offered.prefix(8).joined(separator: ", ") + ")")
        }
        let data = try await fetch(type)
        guard String(data: data, encoding: .utf8) != nil else {
            throw DesktopError(.nothingToCopy, "the clipboard's text is not UTF-8")
        }
        return ClipboardItem(mediaType: .text, data: data)
    }

    /// Puts `item` on the clipboard and returns once the clipboard gives it back. The tool keeps serving it in
    /// the background, as the desktop expects.
    ///
    /// The tool forks a child that serves the selection and its parent exits at once, before the display server
    /// may have seen the child take the selection (xclip's request sits in its output buffer until it next reads
    /// events): a paste right then found the clipboard empty or still holding what was there before, about one
    /// time in six in DesktopToolsTests. So this reads the clipboard back until it holds `item`.
    public func write(_ item: ClipboardItem) async throws(DesktopError) {
        let type = item.mediaType == .text ? textTarget : item.mediaType.rawValue
        let tool: Tool, arguments: [String]
        switch backend {
        case .wayland(let copy, _): (tool, arguments) = (copy, ["--type", type])
        case .x11(let xclip): (tool, arguments) = (xclip, ["-selection", "clipboard", "-i", "-t", type])
        }
        let result = try await tool.run(arguments, input: item.data, environment: environment, keepsOutput: false)
        guard result.status == 0 else {
            throw DesktopError(.toolFailed, "\(tool.name) could not set the clipboard (exit \(result.status))")
        }
        // Each look runs the paste tool, a few milliseconds: that is the wait between two.
        for _ in 0..<Self.readBackLooks {
            if (try? await fetch(type)) == item.data { return }
        }
        throw DesktopError(.toolFailed, "\(tool.name) exited, but the clipboard did not hold what it was given "
            + "after \(Self.readBackLooks) looks")
    }

    /// How many times `write` reads the clipboard back before it gives up.
    static let readBackLooks = 200

    private var textTarget: String {
        switch backend {
        case .wayland: "text/plain;charset=utf-8"
        case .x11: "UTF8_STRING"
        }
    }

    private func fetch(_ type: String) async throws(DesktopError) -> Data {
        switch backend {
        case .wayland(_, let paste):
            try await paste.output(["--no-newline", "--type", type], environment: environment)
        case .x11(let xclip):
            try await xclip.output(["-selection", "clipboard", "-o", "-t", type], environment: environment)
        }
    }
}
