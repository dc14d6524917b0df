import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffNotes
@testable import handoff

/// Runs `handoff` command lines in-process against a ``FakeService``, capturing output.
final class InProcessHarness: @unchecked Sendable {
    let service = FakeService()
    let home: String
    /// What the commands' wall clock reads.
    let now: Date
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""

    init(now: Date = Date()) throws {
        self.now = now
        var template = Array((NSTemporaryDirectory() + "/handoff-inprocess-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        home = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: home)
    }

    var output: String { lock.withLock { outText } }
    var error: String { lock.withLock { errText } }

    var store: NoteStore {
        NoteStore(directory: home + "/data/handoff/notes")
    }

    /// Runs a command line; `onTerminal` makes standard input and error look like a terminal (questions are asked,
    /// progress bars drawn). The editor is `true`, so a restore never opens a real one.
    func run(_ arguments: [String], input: String = "", answer: String? = nil, onTerminal: Bool = false) async
        -> Int32
    {
        lock.withLock {
            outText = ""
            errText = ""
        }
        let terminal = Terminal(
            out: { [self] text in lock.withLock { outText += text } },
            err: { [self] text in lock.withLock { errText += text } },
            readInput: { Data(input.utf8) },
            readLine: { answer },
            inputIsTerminal: onTerminal,
            errorIsTerminal: onTerminal,
            outData: { [self] data in lock.withLock { outText += String(decoding: data, as: UTF8.self) } })
        let context = CommandContext(
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "EDITOR": "true"], terminal: terminal,
            connector: FakeConnector(service: service), date: { [now] in now })
        return await Handoff.run(arguments, context: context).rawValue
    }
}
