@testable import HandoffKit
import Testing

/// `HandoffError.Code`'s names and numbers come from one declaration (`Code.Known`), and read as they always have:
/// the D-Bus error names (`org.handoff.Error.UserInfoTooLarge`) and every printed error depend on them.
struct ErrorCodeTests {
    /// The codes as they were named and numbered before `Known` (issue 26), by their public constants.
    static let published: [(HandoffError.Code, String, Int)] = [
        (.handoffFailed, "handoffFailed", 4608), (.connectionUnavailable, "connectionUnavailable", 4609),
        (.remoteApplicationTimedOut, "remoteApplicationTimedOut", 4610), (.userInfoTooLarge, "userInfoTooLarge", 4611),
        (.untrustedPeer, "untrustedPeer", 4612), (.undeclaredActivityType, "undeclaredActivityType", 4613),
        (.protocolVersionMismatch, "protocolVersionMismatch", 4614), (.corruptPayload, "corruptPayload", 4615),
        (.activityExpired, "activityExpired", 4616), (.invalidActivity, "invalidActivity", 4617),
        (.pairingFailed, "pairingFailed", 4618), (.invalidTrustState, "invalidTrustState", 4619),
        (.cryptoUnavailable, "cryptoUnavailable", 4620), (.radioFailure, "radioFailure", 4621),
        (.inboxFull, "inboxFull", 4622), (.itemTooLarge, "itemTooLarge", 4623),
    ]

    @Test func everyKnownCodeHasAUniqueNameAndNumberInOurRange() {
        let known = HandoffError.Code.Known.allCases
        #expect(Set(known.map(\.name)).count == known.count)
        #expect(Set(known.map(\.rawValue)).count == known.count)
        #expect(known.allSatisfy { (4608...4863).contains($0.rawValue) })
        #expect(known.allSatisfy { HandoffError.Code(rawValue: $0.rawValue).name == $0.name })
    }

    @Test func thePublishedCodesKeepTheirNamesAndNumbers() {
        for (code, name, number) in Self.published {
            #expect(code.rawValue == number)
            #expect(code.name == name)
            #expect(code.description == name)
            #expect(HandoffError.Code(rawValue: number) == code)
        }
        #expect(HandoffError.Code.Known.allCases.count >= Self.published.count)
    }

    @Test func anUnknownCodeIsNamedByItsNumber() {
        #expect(HandoffError.Code(rawValue: 4700).name == "code 4700")
        #expect(HandoffError.Code(rawValue: 0).name == "code 0")
    }

    @Test func theDescriptionReadsAsBefore() {
        let error = HandoffError(.userInfoTooLarge, "the payload is 2 MiB", activityType: "org.handoff.note")
        #expect(error.description == "[4611 userInfoTooLarge] org.handoff.note: the payload is 2 MiB")
        #expect(HandoffError(HandoffError.Code(rawValue: 4999), "odd").description == "[4999 code 4999] odd")
    }
}
