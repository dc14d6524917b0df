import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff open URL`: offer a web page, to be opened in the browser of the machine that continues it.
enum OpenCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let url = Argument<String>("url", help: "The page's absolute URL, such as https://example.org/.")
        let title = Option<String>("title", valueName: "text", help: "A title for it (default: the URL).")
    }

    static let configuration = CommandConfiguration(
        name: "open",
        abstract: "Offer a web page to your nearby devices, to open in their browser (daemon).",
        discussion: """
            Offers an org.handoff.web activity whose webpageURL is the URL, as Safari's \
            NSUserActivityTypeBrowsingWeb. 'handoff continue' on the other machine opens it with xdg-open, or \
            prints it with --print. Only http and https pages are ever opened there; a link with another \
            scheme is offered but only shown. A URL with spaces or control characters is refused (exit 65).
            """,
        examples: [Example("handoff open https://www.kernel.org/doc/html/latest/", "Offer a page.")])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let link = try WebLink(invocation[\.url] ?? "")
        _ = try await context.service().setCurrentActivity(link.activity(title: invocation[\.title]))
        context.terminal.note("offered \(link.text)" + (link.isOpenable ? "" : " (it will be shown, not opened: "
            + "only http and https are opened)"))
        return .success
    }
}
