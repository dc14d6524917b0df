import Foundation
import HandoffClient
import Testing

@testable import handoff

/// `handoff continue --print --json`'s document: `ContinuedActivity`'s keys, userInfo with JSON types.
@Suite struct ContinuedActivityReportTests {
    static let continued: ContinuedActivity = {
        let summary = ActivitySummary(
            id: ActivityID(rawValue: "a1"), type: "org.example.reader", title: "Book", device: "laptop", age: 2,
            size: 40)
        var continued = ContinuedActivity(
            summary: summary,
            content: ActivityContent(type: "org.example.reader", title: "Book", userInfo: ["page": "41", "on": "true"]),
            transport: "l2cap", fallback: "refused")
        continued.app = "org.example.Reader.desktop"
        return continued
    }()

    private func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.document(value).utf8)) as? [String: Any])
    }

    /// Every key `ContinuedActivity` has in its `Codable` form, the document has, at both levels: a property added
    /// there and not here fails this.
    @Test func theDocumentHasContinuedActivitysKeys() throws {
        let plain = try object(Self.continued)
        let report = try object(ContinuedActivityReport(Self.continued))
        #expect(Set(report.keys) == Set(plain.keys))
        #expect(Set(report.keys) == ["summary", "content", "transport", "fallback", "app"])
        let plainContent = try #require(plain["content"] as? [String: Any])
        let reportContent = try #require(report["content"] as? [String: Any])
        #expect(Set(reportContent.keys) == Set(plainContent.keys))
    }

    /// A service that gives only text: the values stay strings, as `ContinuedActivity`'s own form has them.
    @Test func withoutTypesTheValuesAreStrings() throws {
        let text = try JSONOutput.document(ContinuedActivityReport(Self.continued))
        #expect(text.contains(#""page" : "41""#))
        #expect(text.contains(#""on" : "true""#))
    }

    @Test func withTypesEachValueIsItsJSONType() throws {
        var continued = Self.continued
        continued.userInfoValues = [
            "page": .integer(41), "on": .bool(true), "ratio": .real(0.25), "nan": .real(.nan),
            "at": .date(Date(timeIntervalSince1970: 0.5)), "blob": .data(Data("hi".utf8)),
            "link": .url(URL(string: "https://example.org/x")!),
            "list": .array([.integer(1), .dictionary(["k": .string("v")])]),
        ]
        let text = try JSONOutput.line(ContinuedActivityReport(continued))
        let expected = #""userInfo":{"at":"1970-01-01T00:00:00.500Z","blob":"aGk=","link":"https://example.org/x","#
            + #""list":[1,{"k":"v"}],"nan":"nan","on":true,"page":41,"ratio":0.25}"#
        #expect(text.contains(expected), "\(text)")
    }

    /// Read back, JSON's own types return; a date, data or URL is the string it was written as.
    @Test func decodingGivesJSONsTypesBack() throws {
        let json = #"{"a": true, "b": -3, "c": 1.5, "d": "x", "e": [false, null], "f": {"g": []}}"#
        let values = try? JSONDecoder().decode([String: UserInfoValue].self, from: Data(json.utf8))
        // null is no property-list value: the whole document is refused.
        #expect(values == nil)
        let valid = #"{"a": true, "b": -3, "c": 1.5, "d": "x", "e": [false], "f": {"g": []}}"#
        let decoded = try JSONDecoder().decode([String: UserInfoValue].self, from: Data(valid.utf8))
        #expect(decoded == ["a": .bool(true), "b": .integer(-3), "c": .real(1.5), "d": .string("x"),
                            "e": .array([.bool(false)]), "f": .dictionary(["g": .array([])])])
    }
}
