import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff clipboard`: follow the desktop clipboard, and pause or resume following.
enum ClipboardCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "clipboard",
        abstract: "Offer every copy you make to your nearby devices, and pause that when you need to.")

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [ClipboardFollowCommand.self, ClipboardPauseCommand.self, ClipboardResumeCommand.self]
    }
}

/// `handoff clipboard follow`: offer every new local copy, from the desktop's clipboard events.
enum ClipboardFollowCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "follow",
        abstract: "Offer each new copy on this desktop's clipboard, until interrupted (daemon).",
        discussion: """
            Waits for the desktop's own clipboard events (wl-paste --watch on Wayland, the XFixes selection-owner \
            event on X11; it never polls) and offers each new copy as 'handoff copy' would, for two minutes. \
            What was on the clipboard when it started is not offered. Secrets are skipped: copies that carry \
            the x-kde-passwordManagerHint type (KeePassXC, KDE), and those wl-paste reports as \
            CLIPBOARD_STATE=sensitive. 'handoff clipboard pause' pauses every follower of your session until \
            'handoff clipboard resume'. What 'handoff paste --set' put on the clipboard is not offered back. Each \
            offered or skipped copy is reported on standard error.
            """,
        examples: [Example("handoff clipboard follow &", "Follow the clipboard in the background.")])

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        let clipboard = try DesktopClipboard(environment: context.environment)
        let service = try await context.service()
        let pause = ClipboardPause(environment: context.environment)
        let pasted = PastedMark(environment: context.environment)
        let watcher = ClipboardWatcher(clipboard: clipboard)
        let changes = watcher.changes()
        // wl-paste reports the clipboard as it is when watching starts: that copy is not new.
        var initial: ClipboardItem?
        if case .wayland = clipboard.backend { initial = try? await clipboard.read() }
        context.terminal.note("following the clipboard of \(clipboard.name)"
            + (pause.isPaused ? " (paused: 'handoff clipboard resume' resumes)" : ""))
        for try await change in changes {
            let types = (try? await clipboard.types()) ?? []
            if let before = initial {
                initial = nil
                if let now = try? await clipboard.read(), now == before { continue }
            }
            if types.isEmpty { continue }   // cleared
            if change.isSensitive || DesktopClipboard.isSensitive(types) {
                context.terminal.note("skipped a copy marked as a secret")
                continue
            }
            if pause.isPaused {
                context.terminal.note("paused: a copy was not offered")
                continue
            }
            do {
                let item = try await clipboard.read()
                if pasted.isPasted(item) {
                    context.terminal.note("skipped what 'handoff paste --set' put there")
                    continue
                }
                _ = try await service.setCurrentActivity(item.activity)
                context.terminal.note("offered \(item.title.lowercased())")
            } catch let error as DesktopError where error.code == .nothingToCopy {
                context.terminal.note("skipped: \(error.message)")
            }
        }
        return .success
    }
}

/// `handoff clipboard pause`.
enum ClipboardPauseCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "pause",
        abstract: "Pause every 'handoff clipboard follow' of your session until 'handoff clipboard resume'.",
        discussion: """
            Creates the flag file $XDG_RUNTIME_DIR/handoff/clipboard-paused (else \
            $XDG_STATE_HOME/handoff/, default ~/.local/state/handoff/), which followers check on every copy; \
            a follower started while paused starts paused. The pause ends at logout with the runtime folder.
            """)

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        let pause = ClipboardPause(environment: context.environment)
        try pause.pause()
        context.terminal.note("clipboard following paused (\(pause.path)); 'handoff clipboard resume' resumes")
        return .success
    }
}

/// `handoff clipboard resume`.
enum ClipboardResumeCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "resume",
        abstract: "Resume offering copies after 'handoff clipboard pause'.")

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        try ClipboardPause(environment: context.environment).resume()
        context.terminal.note("clipboard following resumed")
        return .success
    }
}
