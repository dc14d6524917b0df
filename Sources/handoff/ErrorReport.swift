import HandoffCommandLine
import HandoffShared

/// The JSON printed on standard output when a command given `--json` fails:
/// `{"error":{"causes":[{"kind":"RadioError.unreachable","message":"…"}],"exitCode":4,"message":"…"}}`.
/// `causes` lists what the error wraps, top first (empty when nothing); kinds name the error's type and code.
struct ErrorReport: Encodable {
    struct Body: Encodable {
        let message: String
        let exitCode: Int32
        let causes: [ErrorLink]
    }

    let error: Body

    init(message: String, exitCode: ExitCode, causes: [ErrorLink]) {
        error = Body(message: message, exitCode: exitCode.rawValue, causes: causes)
    }
}
