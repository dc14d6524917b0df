@testable import HandoffKit
import Testing

/// The source's sequence numbers: never repeated, and a REQUEST answered only for the current activity's latest.
@Suite struct BeaconSequencesTests {
    @Test func eachTakeIsNewAndTheLastIsRemembered() {
        var sequences = BeaconSequences(first: 10)
        #expect(sequences.last == nil)
        #expect(sequences.take(serving: true) == 10)
        #expect(sequences.take(serving: false) == 11)
        #expect(sequences.last == 11)
        #expect(sequences.next == 12)
    }

    @Test func theCounterWrapsRatherThanTrapping() {
        var sequences = BeaconSequences(first: .max)
        #expect(sequences.take(serving: true) == .max)
        #expect(sequences.take(serving: true) == 0)
    }

    @Test func onlyTheCurrentActivitysLatestAreServed() {
        var sequences = BeaconSequences(first: 1)
        let presence = sequences.take(serving: false)
        let taken = (0..<40).map { _ in sequences.take(serving: true) }
        #expect(!sequences.serves(presence))
        #expect(taken.filter(sequences.serves) == Array(taken.suffix(BeaconSequences.servedLimit)))
        sequences.stopServing()
        #expect(!taken.contains(where: sequences.serves))
        #expect(sequences.take(serving: true) == 42)
    }
}
