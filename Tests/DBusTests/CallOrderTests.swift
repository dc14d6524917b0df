import DBus
import DBusTestSupport
import HandoffShared
import Testing

/// Interfaces exported with `callOrder: .serial` apply calls in arrival order even when handlers suspend.
@Suite struct CallOrderTests {
    @Test func serialInterfaceAppliesCallsInArrivalOrder() async throws {
        let bus = SharedBus()
        defer { bus.stop() }
        try await bus.withServiceAndClient { service, client in
            let received = Locked<[UInt32]>([])
            var stream = ExportedInterface("org.handoff.Test.Stream", callOrder: .serial)
            stream.method("Write", in: "u", noReply: true) { call in
                let index = try call.argument(0, as: UInt32.self)
                // Later writes sleep less, so concurrent handling would reorder them.
                try await Task.sleep(for: .milliseconds(Int(20 - index)))
                received.withLock { $0.append(index) }
                return []
            }
            stream.method("Written", out: "au") { _ in [received.value.dbusValue] }
            try await service.export([stream], at: "/org/handoff/test/stream")

            for index in UInt32(0)..<20 {
                let message = try Message.methodCall(
                    destination: service.uniqueName, path: "/org/handoff/test/stream",
                    interface: "org.handoff.Test.Stream", member: "Write", arguments: [.uint32(index)])
                try client.sendWithoutReply(message)
            }
            let written = try await Proxy(
                connection: client, destination: service.uniqueName, path: "/org/handoff/test/stream",
                interface: "org.handoff.Test.Stream"
            ).call("Written", returning: [UInt32].self)
            #expect(written == Array(0..<20))
        }
    }
}
