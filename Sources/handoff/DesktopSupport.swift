import HandoffCommandLine
import HandoffDesktop

extension ExitCode {
    /// 7: the desktop cannot do it: no clipboard (no display, or wl-clipboard/xclip missing), nothing on it that
    /// handoff carries, or xdg-open missing or failing.
    static let desktopUnavailable = ExitCode(7)
}

extension Handoff {
    /// The exit status of a desktop failure.
    static func exitCode(for error: DesktopError) -> ExitCode {
        switch error.code {
        case .noClipboard, .nothingToCopy, .toolFailed: .desktopUnavailable
        case .refused: .dataError
        }
    }
}
