import DBus
import XCTest

/// Parsing and validation without a bus: bad input is a thrown error with a reason, never a crash.
final class SignatureAndNameTests: XCTestCase {
    func testSignaturesParseIntoTrees() throws {
        let text = "a{oa{sa{sv}}}ay(ib)"  // a variable: `Signature("literal")` would use the literal initialiser
        let signature = try Signature(text)
        XCTAssertEqual(
            signature.types,
            [
                .dictionary(
                    key: .objectPath,
                    value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant))),
                .array(.byte), .structure([.int32, .boolean]),
            ])
        XCTAssertEqual(signature.rawValue, "a{oa{sa{sv}}}ay(ib)")
        XCTAssertEqual(Signature(types: signature.types), signature)
        XCTAssertEqual(try DBusType(String("h")), .unixFD)
    }

    func testInvalidSignaturesAreRejected() {
        for text in ["a{vs}", "(", "()", "a", "{sv}", "z", "a{s}", String(repeating: "a", count: 40) + "y", "s\0"] {
            XCTAssertThrowsError(try Signature(text), "'\(text)'") { error in
                XCTAssertEqual((error as? DBusError)?.code, .invalidSignature)
            }
        }
        XCTAssertThrowsError(try DBusType(String("ss")))
    }

    func testNamesAreValidated() {
        XCTAssertNotNil(ObjectPath(rawValue: "/org/handoff/note_1"))
        XCTAssertNil(ObjectPath(rawValue: "org/handoff"))
        XCTAssertNil(ObjectPath(rawValue: "/a//b"))
        XCTAssertNil(ObjectPath(rawValue: "/a/"))
        XCTAssertNil(ObjectPath(rawValue: "/a-b"))
        XCTAssertNotNil(BusName(rawValue: ":1.42"))
        XCTAssertNil(BusName(rawValue: "org"))
        XCTAssertNil(InterfaceName(rawValue: "org..x"))
        XCTAssertNil(MemberName(rawValue: "Get.All"))
        XCTAssertNil(ErrorName(rawValue: "Failed"))
        let outside = "no slash"
        XCTAssertThrowsError(try ObjectPath(outside)) { error in
            XCTAssertEqual((error as? DBusError)?.code, .invalidName)
            XCTAssertTrue((error as? DBusError)?.message.contains("no slash") ?? false)
        }
    }

    func testObjectPathHierarchy() throws {
        let path: ObjectPath = "/org/handoff/app"
        XCTAssertEqual(try path.appending("service0"), "/org/handoff/app/service0")
        XCTAssertEqual(path.parent, "/org/handoff")
        XCTAssertEqual((ObjectPath("/org") as ObjectPath).parent, .root)
        XCTAssertNil(ObjectPath.root.parent)
        XCTAssertTrue(path.isAncestor(of: "/org/handoff/app/x"))
        XCTAssertFalse(path.isAncestor(of: "/org/handoff/apple"))
        XCTAssertTrue(ObjectPath.root.isAncestor(of: path))
        XCTAssertThrowsError(try path.appending("bad-element"))
    }

    func testMatchRuleText() {
        let rule = MatchRule.signal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
            .sender("org.bluez").pathNamespace("/org/bluez").argument(0, "it's")
        XCTAssertEqual(
            rule.description,
            "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path_namespace='/org/bluez',arg0='it'\\''s'")
    }

    func testBadValuesAreErrorsNotCrashes() {
        let cases: [Value] = [
            .string("nul\0inside"),
            .array(.int32, [.string("not an int")]),
            .dictionary(key: .variant, value: .string, []),
            .structure([]),
            .dictionary(key: .string, value: .int32, [DictionaryEntry(key: .string("k"), value: .uint32(1))]),
        ]
        for value in cases {
            XCTAssertThrowsError(
                try Message.methodCall(destination: nil, path: "/x", interface: nil, member: "M", arguments: [value]),
                "\(value)"
            ) { error in
                XCTAssertEqual((error as? DBusError)?.code, .invalidValue)
            }
        }
    }
}
