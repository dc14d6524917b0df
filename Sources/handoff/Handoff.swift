import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDBusClient
import HandoffDesktop
import HandoffNotes

/// The `handoff` program: parse, dispatch, map errors to documented exit statuses.
@main
enum Handoff {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        let context = CommandContext(
            environment: environment, terminal: .standard, connector: DBusServiceConnector(environment: environment))
        let code = await run(Array(CommandLine.arguments.dropFirst()), context: context)
        exit(code.rawValue)
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
                let (code, message) = describe(error)
                terminal.error(message)
                return code
            }
        }
    }

    static func dispatch(_ invocation: Invocation, context: CommandContext) async throws -> ExitCode {
        switch invocation.subcommandPath {
        case ["note", "edit"]: return try await NoteEditCommand.run(invocation, context: context)
        case ["note", "list"]: return try await NoteListCommand.run(invocation, context: context)
        case ["note", "show"]: return try await NoteShowCommand.run(invocation, context: context)
        case ["continue"]: return try await ContinueCommand.run(invocation, context: context)
        case ["share"]: return try await ShareCommand.run(invocation, context: context)
        case ["inbox", "list"]: return try await InboxListCommand.run(invocation, context: context)
        case ["inbox", "take"]: return try await InboxTakeCommand.run(invocation, context: context)
        case ["inbox", "drop"]: return try await InboxDropCommand.run(invocation, context: context)
        case ["outbox", "list"]: return try await OutboxListCommand.run(invocation, context: context)
        case ["outbox", "cancel"]: return try await OutboxCancelCommand.run(invocation, context: context)
        case ["watch"]: return try await WatchCommand.run(invocation, context: context)
        case ["prompt"]: return try await PromptCommand.run(invocation, context: context)
        case ["devices"]: return try await DevicesCommand.run(invocation, context: context)
        case ["pair"]: return try await PairCommand.run(invocation, context: context)
        case ["unpair"]: return try await UnpairCommand.run(invocation, context: context)
        case ["status"]: return try await StatusCommand.run(invocation, context: context)
        case ["doctor"]: return try await DoctorCommand.run(invocation, context: context)
        case ["completions"]: return try await CompletionsCommand.run(invocation, context: context)
        case ["manual"]: return try await ManualCommand.run(invocation, context: context)
        case ["copy"]: return try await CopyCommand.run(invocation, context: context)
        case ["paste"]: return try await PasteCommand.run(invocation, context: context)
        case ["clipboard", "follow"]: return try await ClipboardFollowCommand.run(invocation, context: context)
        case ["clipboard", "pause"]: return try await ClipboardPauseCommand.run(invocation, context: context)
        case ["clipboard", "resume"]: return try await ClipboardResumeCommand.run(invocation, context: context)
        case ["open"]: return try await OpenCommand.run(invocation, context: context)
        case ["shell-init"]: return try await ShellInitCommand.run(invocation, context: context)
        case ["terminal", "offer"]: return try await TerminalOfferCommand.run(invocation, context: context)
        default:
            throw CLIError(.software, "no implementation for '\(invocation.path.joined(separator: " "))'")
        }
    }

    /// The exit status and message for an error a command threw.
    static func describe(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as CLIError:
            return (error.exitCode, error.message)
        case let error as ServiceError:
            return (exitCode(for: error), error.description)
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
