import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// X11's "the CLIPBOARD selection has a new owner" events (the XFixes extension), the X11 twin of
/// `wl-paste --watch`; it waits in poll(2), never polling on a timer. libX11 and libXfixes are loaded at run time (every X desktop has them), so handoff neither
/// links them nor needs their headers to build; a missing library is a clear error.
enum XFixesSelectionListener {
    private typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias DefaultRootWindow = @convention(c) (OpaquePointer?) -> UInt
    private typealias InternAtom = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, Int32) -> UInt
    private typealias NextEvent = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer) -> Int32
    private typealias DisplayCall = @convention(c) (OpaquePointer?) -> Int32
    private typealias SetIOErrorHandler = @convention(c) (DisplayCall?) -> DisplayCall?
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
            // The listener waits in poll(2) on its own thread; dropping the stream wakes it through this pipe, and
            // it closes its display connection and ends.
            var stop: [Int32] = [0, 0]
            guard pipe(&stop) == 0 else {
                continuation.finish(throwing: DesktopError(.toolFailed, "cannot watch the X11 clipboard: no pipe"))
                return
            }
            for fd in stop { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let (stopRead, stopWrite) = (stop[0], stop[1])
            continuation.onTermination = { _ in
                var byte: UInt8 = 0
                _ = write(stopWrite, &byte, 1)
            }
            let thread = Thread {
                do {
                    try listen(display: display, stop: stopRead) {
                        continuation.yield(ClipboardWatcher.Change(state: nil))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                close(stopRead)
                close(stopWrite)
            }
            thread.name = "handoff XFixes listener"
            thread.start()
        }
    }

    private static func listen(display name: String, stop: Int32, onChange: () -> Void) throws(DesktopError) {
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
        let pending = try symbol(x11, "XPending", as: DisplayCall.self)
        let connectionNumber = try symbol(x11, "XConnectionNumber", as: DisplayCall.self)
        let closeDisplay = try symbol(x11, "XCloseDisplay", as: DisplayCall.self)
        // Xlib exits the process when a connection breaks (the X server went away); end only this thread.
        _ = try symbol(x11, "XSetIOErrorHandler", as: SetIOErrorHandler.self)({ _ in pthread_exit(nil) })
        let queryExtension = try symbol(xfixes, "XFixesQueryExtension", as: QueryExtension.self)
        let selectInput = try symbol(xfixes, "XFixesSelectSelectionInput", as: SelectSelectionInput.self)
        // The protocol wants the version agreed before any other XFixes request.
        let queryVersion = try symbol(xfixes, "XFixesQueryVersion", as: QueryExtension.self)

        guard let display = name.withCString({ openDisplay($0) }) else {
            throw DesktopError(.noClipboard, "cannot open the X display '\(name)'")
        }
        defer { _ = closeDisplay(display) }
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
        var fds = [pollfd(fd: connectionNumber(display), events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while true {
            while pending(display) > 0 {
                _ = nextEvent(display, event)
                // XFixesSelectionNotify is the extension's event 0; the event's type is its first int.
                if event.load(as: Int32.self) == eventBase { onChange() }
            }
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else {
                throw DesktopError(.toolFailed, "cannot watch the X11 clipboard: poll failed")
            }
            if fds[1].revents != 0 { return }
        }
    }
}
