import Foundation
import HandoffClient
import HandoffDesktop
import Testing

@Suite struct NativeMessagingTests {
    func framed(_ json: String) throws -> Data {
        try NativeMessaging.frame(Data(json.utf8))
    }

    @Test func messagesComeOutWholeHoweverTheBytesAreSplit() throws {
        let bytes = Array(try framed(#"{"type":"withdraw"}"#) + framed(#"{"type":"offer"}"#))
        for split in 0...bytes.count {
            var deframer = NativeMessaging.Deframer()
            var messages: [String] = []
            deframer.append(bytes[..<split])
            while let message = try deframer.next() { messages.append(String(decoding: message, as: UTF8.self)) }
            deframer.append(bytes[split...])
            while let message = try deframer.next() { messages.append(String(decoding: message, as: UTF8.self)) }
            #expect(messages == [#"{"type":"withdraw"}"#, #"{"type":"offer"}"#])
            #expect(!deframer.hasPartialMessage)
        }
    }

    @Test func aLengthOverTheBoundIsRefusedBeforeAnythingIsRead() {
        var deframer = NativeMessaging.Deframer()
        var length = UInt32(NativeMessaging.maximumIncoming + 1)
        deframer.append(withUnsafeBytes(of: &length) { Array($0) })
        #expect(throws: DesktopError.self) { try deframer.next() }
    }

    @Test func anOfferBecomesAWebActivity() throws {
        let message = try BrowserTabMessage(json: Data(
            #"{"type":"offer","url":"https://example.org/a?b=c","title":"A\u001b[2J page","incognito":false}"#.utf8))
        let activity = try #require(try message.activity())
        #expect(activity.type == "org.handoff.web")
        #expect(activity.userInfo["url"] == "https://example.org/a?b=c")
        #expect(activity.title == "A[2J page")
    }

    @Test func aPrivateTabAnotherSchemeOrAMessageThatDoesNotSayAreNeverOffered() throws {
        for json in [#"{"type":"offer","url":"https://example.org/","incognito":true}"#,
                     #"{"type":"offer","url":"https://example.org/"}"#,
                     #"{"type":"offer","url":"file:///etc/passwd","incognito":false}"#,
                     #"{"type":"offer","url":"javascript:alert(1)","incognito":false}"#,
                     #"{"type":"offer","url":"https:///nohost","incognito":false}"#] {
            let message = try BrowserTabMessage(json: Data(json.utf8))
            #expect(throws: DesktopError.self, "\(json)") { try message.activity() }
        }
        #expect(try BrowserTabMessage(json: Data(#"{"type":"withdraw"}"#.utf8)).activity() == nil)
    }

    @Test func malformedMessagesAreRefusedWithAReason() {
        for json in ["[1]", "nonsense", #"{"type":"reboot"}"#, #"{"url":"https://a.org/"}"#,
                     #"{"type":"offer","url":5}"#] {
            #expect(throws: DesktopError.self, "\(json)") { try BrowserTabMessage(json: Data(json.utf8)) }
        }
    }
}
