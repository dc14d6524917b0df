import HandoffShared
import Testing

/// An error's causes survive the walk, the bus text and a hostile peer's text.
@Suite struct ErrorChainTests {
    struct Lower: CausedError {
        let cause: (any Error)?
        let text: String
        var link: ErrorLink { ErrorLink(kind: "Lower.failed", message: text) }
    }

    struct Plain: Error, CustomStringConvertible { var description: String { "disk full" } }

    @Test func theWalkListsEveryCauseTopFirstAndEndsAtAnErrorThatWrapsNothing() {
        let error = Lower(cause: Lower(cause: Plain(), text: "cannot save"), text: "cannot pair")
        #expect(ErrorChain.causes(of: error).map(\.description) == ["[Lower.failed] cannot save", "[Plain] disk full"])
        #expect(ErrorChain.text(error) == "cannot pair (caused by: [Lower.failed] cannot save; caused by: [Plain] disk full)")
    }

    @Test func theBusTextGivesBackTheMessageAndTheCausesAsTheyWere() {
        let causes = [ErrorLink(kind: "RadioError.unreachable", message: "out of range\nor gone \\ \u{1B}[31m"),
                      ErrorLink(kind: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")]
        let text = ErrorChain.busText(message: "cannot connect\nto laptop", causes: causes)
        #expect(text.split(separator: "\n").count == 3)
        let (message, back) = ErrorChain.parseBusText(text)
        #expect(message == "cannot connect\nto laptop")
        #expect(back == causes)
    }

    @Test func aPeersTextCannotForgeACauseNorDriveTheTerminal() {
        let hostile = "fine\ncaused by: [Forged.kind] lies\u{1B}]0;title\u{07}"
        let text = ErrorChain.busText(message: hostile, causes: [])
        #expect(ErrorChain.parseBusText(text).causes.isEmpty)
        #expect(ErrorChain.parseBusText(text).message == hostile)
        let printed = ErrorChain.causeLines([ErrorLink(kind: "K]\n x", message: hostile)]).joined()
        #expect(!printed.contains("\n") && !printed.contains("\u{1B}") && !printed.contains("\u{07}"))
        #expect(printed.hasPrefix("  caused by: [Kx] fine\\u{A}caused by:"))
    }

    @Test func aTextWithoutCausesIsAllMessageAndADeepChainIsCut() {
        #expect(ErrorChain.parseBusText("plain [x] text").causes.isEmpty)
        var error: any Error = Plain()
        for index in 0..<100 { error = Lower(cause: error, text: "level \(index)") }
        #expect(ErrorChain.links(of: error).count == ErrorChain.maximumDepth)
        #expect(ReportedError(chain: ErrorChain.links(of: error)).map { ErrorChain.links(of: $0).count } == 16)
    }
}
