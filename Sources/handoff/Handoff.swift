import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDBusClient
import HandoffDesktop
import HandoffNotes
import HandoffShared

/// The `handoff` program: parse, dispatch, map errors to documented exit statuses.
///
/// Every task runs on one ``LoopExecutor`` on the main thread (``ProgramExecutors``), as in handoffd:
/// `handoff watch` and `handoff clipboard follow` run all day, and on Swift's default executor (Dispatch's queues)
/// libdispatch's workqueue monitor would wake them every second (Docs/performance.md, "At rest").
@main
enum Handoff {
    static func main() {
        ProgramExecutors.run {
            let environment = ProcessInfo.processInfo.environment
            let context = CommandContext(
                environment: environment, terminal: .standard, connector: DBusServiceConnector(environment: environment))
            let code = await run(Array(CommandLine.arguments.dropFirst()), context: context)
            exit(code.rawValue)
        }
    }

    /// Runs one command line and returns the exit status.
    static func run(_ arguments: [String], context: CommandContext) async -> ExitCode {
        let terminal = context.terminal
        let outcome: ParseOutcome
        do {
            outcome = try CommandParser(root: RootCommand.spec).parse(arguments)
        } catch {
            terminal.error(error.message)
            terminal.err(error.helpHint + "\n")
            return .usage
        }
        switch outcome {
        case .help(let path, let command):
            terminal.out(HelpFormatter().help(for: command, path: path))
            return .success
        case .version(let version):
            terminal.out("handoff \(version)\n")
            return .success
        case .run(let invocation):
            do {
                return try await dispatch(invocation, context: context)
            } catch {
                return report(error, json: invocation.isGiven("json"), terminal: terminal)
            }
        }
    }

    /// Runs the command the parse selected, found in the one command tree.
    static func dispatch(_ invocation: Invocation, context: CommandContext) async throws -> ExitCode {
        guard let run = RootCommand.runner(for: invocation) else {
            throw CLIError(.software, "no implementation for '\(invocation.path.joined(separator: " "))'")
        }
        return try await run(invocation, context)
    }

    /// Prints what a command threw, then the chain of its causes (one indented line each, escaped: the daemon's
    /// causes may quote a peer), and with --json the same as a document on standard output; returns the status.
    static func report(_ error: any Error, json: Bool, terminal: Terminal) -> ExitCode {
        let (code, message) = describe(error)
        let causes = ErrorChain.causes(of: error)
        terminal.error(message)
        for line in ErrorChain.causeLines(causes) { terminal.err(line + "\n") }
        if json, let document = try? JSONOutput.document(ErrorReport(message: message, exitCode: code, causes: causes)) {
            terminal.outRaw(document)
        }
        return code
    }

    /// The exit status and message for an error a command threw.
    static func describe(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as CLIError:
            return (error.exitCode, error.message)
        case let error as ServiceError:
            return (exitCode(for: error), ErrorChain.escaped(error.description))
        case let error as NoteError:
            return (exitCode(for: error), error.message)
        case let error as DesktopError:
            return (exitCode(for: error), error.message)
        case let error as UsageError:
            return (.usage, error.message + "\n" + error.helpHint)
        default:
            return (.failure, String(describing: error))
        }
    }

    static func exitCode(for error: ServiceError) -> ExitCode {
        switch error.code {
        case .unreachable: return .daemonUnreachable
        case .noActivity: return .noActivity
        case .continueFailed: return .continueFailed
        case .unknownDevice: return .noInput
        case .permissionDenied: return .noPermission
        default: return .failure
        }
    }

    static func exitCode(for error: NoteError) -> ExitCode {
        switch error.code {
        case .invalidName: return .usage
        case .notFound: return .noInput
        case .notText: return .dataError
        case .editorFailed: return .editorFailed
        default: return .ioError
        }
    }
}
