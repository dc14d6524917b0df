import Foundation
import HandoffClient
import HandoffDesktop
import Testing

@Suite struct ClipboardItemTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

    @Test func textRoundTripsThroughTheActivityWithItsMediaType() throws {
        let item = ClipboardItem.text("ssh build-01 'uptime'\n")
        let activity = item.activity
        #expect(activity.type == "org.handoff.clipboard")
        #expect(activity.userInfo["mediaType"] == "text/plain")
        #expect(activity.title == "Text, 22 characters")
        #expect(try ClipboardItem(activity) == item)
    }

    @Test func aPNGIsRecognisedAndRoundTripsByteExact() throws {
        let item = try ClipboardItem.sniffing(Self.png)
        #expect(item.mediaType == .png)
        #expect(item.activity.userInfo["mediaType"] == "image/png")
        #expect(try ClipboardItem(item.activity).data == Self.png)
    }

    @Test func emptyOrBinaryInputIsNothingToCopy() {
        #expect(throws: DesktopError.self) { try ClipboardItem.sniffing(Data()) }
        #expect(throws: DesktopError.self) { try ClipboardItem.sniffing(Data([0xFF, 0xFE, 0x00, 0xC3])) }
    }

    @Test func anUnknownMediaTypeOrBadImageFromAnotherDeviceIsRefused() {
        let html = ActivityContent(type: "org.handoff.clipboard", title: "x",
                                   userInfo: ["mediaType": "text/html", "text": "<b>x</b>"])
        #expect(throws: DesktopError(.refused, "the clipboard holds 'text/html', which handoff does not paste "
            + "(only text/plain and image/png)")) { try ClipboardItem(html) }
        let badImage = ActivityContent(type: "org.handoff.clipboard", title: "x",
                                       userInfo: ["mediaType": "image/png", "base64": "not base64!"])
        #expect(throws: DesktopError.self) { try ClipboardItem(badImage) }
    }

    @Test func aSecretIsRecognisedByThePasswordManagerHint() {
        #expect(DesktopClipboard.isSensitive(["text/plain", "x-kde-passwordManagerHint"]))
        #expect(!DesktopClipboard.isSensitive(["text/plain", "UTF8_STRING"]))
    }

    @Test func theLifetimeIsTwoMinutes() {
        #expect(ClipboardItem.lifetime == .seconds(120))
    }

    @Test func noDisplayIsAClearError() {
        #expect(throws: DesktopError(.noClipboard, "no desktop clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set")) {
            try DesktopClipboard(environment: ["PATH": "/usr/bin:/bin"])
        }
        #expect(throws: DesktopError(.noClipboard, "DISPLAY is set but xclip is not on PATH (install xclip)")) {
            try DesktopClipboard(environment: ["PATH": "/nonexistent", "DISPLAY": ":9"])
        }
    }

    @Test func aPastedCopyIsRecognised() throws {
        let scratch = try Scratch()
        let mark = PastedMark(environment: ["XDG_RUNTIME_DIR": scratch.path])
        #expect(!mark.isPasted(.text("x")))
        mark.record(.text("from the laptop"))
        #expect(mark.isPasted(.text("from the laptop")))
        #expect(!mark.isPasted(.text("typed here")))
        #expect(!mark.isPasted(ClipboardItem(mediaType: .png, data: Data("from the laptop".utf8))))
    }

    @Test func pauseIsAFlagEveryFollowerSees() throws {
        let scratch = try Scratch()
        let pause = ClipboardPause(environment: ["XDG_RUNTIME_DIR": scratch.path])
        #expect(pause.path == scratch.path + "/handoff/clipboard-paused")
        #expect(!pause.isPaused)
        try pause.pause()
        try pause.pause()
        #expect(ClipboardPause(environment: ["XDG_RUNTIME_DIR": scratch.path]).isPaused)
        try pause.resume()
        try pause.resume()
        #expect(!pause.isPaused)
    }
}
