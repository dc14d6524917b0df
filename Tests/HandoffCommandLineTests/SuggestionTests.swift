@testable import HandoffCommandLine
import Testing

@Suite struct SuggestionTests {
    @Test func distanceCountsEdits() {
        #expect(Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.distance("", "abc") == 3)
        #expect(Suggestion.distance("same", "same") == 0)
    }

    @Test func suggestsOnlyPlausibleTypos() {
        #expect(Suggestion.closest(to: "--jsno", among: ["--json", "--help"]) == "--json")
        #expect(Suggestion.closest(to: "--gr", among: ["--grace", "--help"]) == "--grace")
        #expect(Suggestion.closest(to: "--zzzzzz", among: ["--json", "--help"]) == nil)
    }
}
