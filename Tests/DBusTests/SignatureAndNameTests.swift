import DBus
import Testing

/// Parsing and validation without a bus: bad input is a thrown error with a reason, never a crash.
@Suite struct SignatureAndNameTests {
    @Test func signaturesParseIntoTrees() throws {
        let text = "a{oa{sa{sv}}}ay(ib)"  // a variable: `Signature("literal")` would use the literal initialiser
        let signature = try Signature(text)
        #expect(signature.types == [
                .dictionary(
                    key: .objectPath,
                    value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant))),
                .array(.byte), .structure([.int32, .boolean]),
            ])
        #expect(signature.rawValue == "a{oa{sa{sv}}}ay(ib)")
        #expect(Signature(types: signature.types) == signature)
        #expect(try DBusType(String("h")) == .unixFD)
    }

    @Test func invalidSignaturesAreRejected() {
        for text in ["a{vs}", "(", "()", "a", "{sv}", "z", "a{s}", String(repeating: "a", count: 40) + "y", "s\0"] {
            if let error = #expect(throws: (any Error).self, "'\(text)'", performing: { try Signature(text) }) {
                #expect((error as? DBusError)?.code == .invalidSignature)
            }
        }
        #expect(throws: (any Error).self) { try DBusType(String("ss")) }
    }

    @Test func namesAreValidated() {
        #expect(ObjectPath(rawValue: "/org/handoff/note_1") != nil)
        #expect(ObjectPath(rawValue: "org/handoff") == nil)
        #expect(ObjectPath(rawValue: "/a//b") == nil)
        #expect(ObjectPath(rawValue: "/a/") == nil)
        #expect(ObjectPath(rawValue: "/a-b") == nil)
        #expect(BusName(rawValue: ":1.42") != nil)
        #expect(BusName(rawValue: "org") == nil)
        #expect(InterfaceName(rawValue: "org..x") == nil)
        #expect(MemberName(rawValue: "Get.All") == nil)
        #expect(ErrorName(rawValue: "Failed") == nil)
        let outside = "no slash"
        if let error = #expect(throws: (any Error).self, performing: { try ObjectPath(outside) }) {
            #expect((error as? DBusError)?.code == .invalidName)
            #expect((error as? DBusError)?.message.contains("no slash") ?? false)
        }
    }

    @Test func objectPathHierarchy() throws {
        let path: ObjectPath = "/org/handoff/app"
        #expect(try path.appending("service0") == "/org/handoff/app/service0")
        #expect(path.parent == "/org/handoff")
        #expect((ObjectPath("/org") as ObjectPath).parent == .root)
        #expect(ObjectPath.root.parent == nil)
        #expect(path.isAncestor(of: "/org/handoff/app/x"))
        #expect(!(path.isAncestor(of: "/org/handoff/apple")))
        #expect(ObjectPath.root.isAncestor(of: path))
        #expect(throws: (any Error).self) { try path.appending("bad-element") }
    }

    @Test func matchRuleText() {
        let rule = MatchRule.signal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
            .sender("org.bluez").pathNamespace("/org/bluez").argument(0, "it's")
        #expect(rule.description == "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path_namespace='/org/bluez',arg0='it'\\''s'")
    }

    @Test func badValuesAreErrorsNotCrashes() {
        let cases: [Value] = [
            .string("nul\0inside"),
            .array(.int32, [.string("not an int")]),
            .dictionary(key: .variant, value: .string, []),
            .structure([]),
            .dictionary(key: .string, value: .int32, [DictionaryEntry(key: .string("k"), value: .uint32(1))]),
        ]
        for value in cases {
            if let error = #expect(throws: (any Error).self, "\(value)", performing: {
                try Message.methodCall(destination: nil, path: "/x", interface: nil, member: "M", arguments: [value])
            }) {
                #expect((error as? DBusError)?.code == .invalidValue)
            }
        }
    }
}
