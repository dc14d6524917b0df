import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// X11's "the CLIPBOARD selection has a new owner" events (the XFixes extension), the X11 twin of
/// `wl-paste --watch`. libX11 and libXfixes are loaded at run time (every X desktop has them), so handoff neither
/// links them nor needs their headers to build; a missing library is a clear error.
enum XFixesSelectionListener {
    private typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias DefaultRootWindow = @convention(c) (OpaquePointer?) -> UInt
    private typealias InternAtom = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, Int32) -> UInt
    private typealias NextEvent = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer) -> Int32
    private typealias QueryExtension = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>,
                                                       UnsafeMutablePointer<Int32>) -> Int32
    private typealias SelectSelectionInput = @convention(c) (OpaquePointer?, UInt, UInt, UInt) -> Void

    /// `XFixesSetSelectionOwnerNotifyMask`.
    private static let ownerNotifyMask: UInt = 1
    /// `sizeof(XEvent)`: a union of 24 longs.
    private static let eventSize = 24 * MemoryLayout<Int>.size

    /// Changes of the CLIPBOARD selection's owner on the display `environment["DISPLAY"]` names, one per new copy.
    static func changes(environment: [String: String]) -> AsyncThrowingStream<ClipboardWatcher.Change, any Error> {
        AsyncThrowingStream { continuation in
            let display = environment["DISPLAY"] ?? ""
            // XNextEvent blocks; the listener has a thread of its own, which ends with the process.
            let thread = Thread {
                do {
                    try listen(display: display) { continuation.yield(ClipboardWatcher.Change(state: nil)) }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.name = "handoff XFixes listener"
            thread.start()
        }
    }

    private static func listen(display name: String, onChange: () -> Void) throws(DesktopError) {
        guard let x11 = dlopen("libX11.so.6", RTLD_NOW), let xfixes = dlopen("libXfixes.so.3", RTLD_NOW) else {
            throw DesktopError(.noClipboard, "cannot watch the X11 clipboard: libX11.so.6 or libXfixes.so.3 is "
                + "missing (install libxfixes3)")
        }
        func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) throws(DesktopError) -> T {
            guard let pointer = dlsym(library, name) else {
                throw DesktopError(.noClipboard, "cannot watch the X11 clipboard: \(name) is missing")
            }
            return unsafeBitCast(pointer, to: type)
        }
        let openDisplay = try symbol(x11, "XOpenDisplay", as: OpenDisplay.self)
        let rootWindow = try symbol(x11, "XDefaultRootWindow", as: DefaultRootWindow.self)
        let internAtom = try symbol(x11, "XInternAtom", as: InternAtom.self)
        let nextEvent = try symbol(x11, "XNextEvent", as: NextEvent.self)
        let queryExtension = try symbol(xfixes, "XFixesQueryExtension", as: QueryExtension.self)
        let selectInput = try symbol(xfixes, "XFixesSelectSelectionInput", as: SelectSelectionInput.self)
        // The protocol wants the version agreed before any other XFixes request.
        let queryVersion = try symbol(xfixes, "XFixesQueryVersion", as: QueryExtension.self)

        guard let display = name.withCString({ openDisplay($0) }) else {
            throw DesktopError(.noClipboard, "cannot open the X display '\(name)'")
        }
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        guard queryExtension(display, &eventBase, &errorBase) != 0 else {
            throw DesktopError(.noClipboard, "the X server of '\(name)' has no XFixes extension")
        }
        var major: Int32 = 5, minor: Int32 = 0
        _ = queryVersion(display, &major, &minor)
        let clipboard = internAtom(display, "CLIPBOARD", 0)
        selectInput(display, rootWindow(display), clipboard, ownerNotifyMask)
        let event = UnsafeMutableRawPointer.allocate(byteCount: eventSize, alignment: MemoryLayout<Int>.alignment)
        defer { event.deallocate() }
        while true {
            _ = nextEvent(display, event)
            // XFixesSelectionNotify is the extension's event 0; the event's type is its first int.
            if event.load(as: Int32.self) == eventBase { onChange() }
        }
    }
}
