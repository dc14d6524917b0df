import DBus
import DBusTestSupport
import HandoffShared

/// One private bus for a suite's test: started by the first call that asks for it, stopped by `stop()` (the suite's
/// `deinit`). A missing dbus-daemon fails the test with the reason; it never skips.
final class SharedBus: Sendable {
    private let bus = Locked<PrivateBus?>(nil)
    private let extraPolicy: String

    init(extraPolicy: String = "") {
        self.extraPolicy = extraPolicy
    }

    func get() throws -> PrivateBus {
        try bus.withLock { bus in
            if let bus { return bus }
            let started = try PrivateBus(extraPolicy: extraPolicy)
            bus = started
            return started
        }
    }

    /// A service connection and a client connection to the bus, both closed once `body` returns or throws.
    func withServiceAndClient<R>(_ body: (_ service: Connection, _ client: Connection) async throws -> R)
        async throws -> R {
        let bus = try get()
        let service = try bus.connect()
        let client = try bus.connect()
        defer {
            service.close()
            client.close()
        }
        return try await body(service, client)
    }

    func stop() {
        bus.withLock { bus in
            bus?.stop()
            bus = nil
        }
    }
}

/// An object that echoes its arguments back, exported by the tests' service connections.
enum Echo {
    static let interface: InterfaceName = "org.handoff.Test.Echo"
    static let path: ObjectPath = "/org/handoff/test/echo"

    /// An interface whose `Echo<sig>` methods return their arguments unchanged.
    static func make(signatures: [String]) -> ExportedInterface {
        var echo = ExportedInterface(interface)
        for (index, text) in signatures.enumerated() {
            let signature = Signature(stringLiteral: text)
            echo.method(MemberName(stringLiteral: "Echo\(index)"), in: signature, out: signature) { call in
                call.arguments
            }
        }
        return echo
    }
}
