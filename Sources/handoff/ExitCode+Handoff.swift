import HandoffCommandLine

/// handoff's own exit statuses, beside the generic ones (0 success, 1 failure, 64 usage, 65 data error,
/// 66 no such note, 74 I/O error, 77 permission denied). All are listed in `handoff --help` and Docs/usage.md.
extension ExitCode {
    /// 3: no activity is available (or none matches `--from`/`--type`).
    static let noActivity = ExitCode(3)
    /// 4: the activity could not be continued; the message carries the `didFailToContinue` code.
    static let continueFailed = ExitCode(4)
    /// 5: the note was continued but saved as a conflict copy, because the local note of that name is open in an
    /// editor or has different content. Nothing was lost; the message names both files.
    static let conflictKept = ExitCode(5)
    /// 6: the editor could not be started or exited with an error (whatever it saved is kept).
    static let editorFailed = ExitCode(6)
    /// 69: the handoff daemon is not reachable (`EX_UNAVAILABLE`).
    static let daemonUnreachable = ExitCode(69)
}
