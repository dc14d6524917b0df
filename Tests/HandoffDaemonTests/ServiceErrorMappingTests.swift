import DBus
import HandoffClient
@testable import HandoffDBusClient
import Testing

/// What the CLI says when the bus call itself failed: a daemon that is gone, and one that is busy past the call's
/// timeout, are told apart (a continue once outlasted its 120 s call under attack, the live attack's round 3; it has
/// no fixed timeout now, `ContinueQuietLimitTests`, but every other call has one).
struct ServiceErrorMappingTests {
    @Test func aCallWithNoReplyInTimeSaysTheDaemonIsBusyNotGone() {
        let error = ServiceErrorMapping.serviceError(DBusError(.noReply, "Did not receive a reply"), bus: "system")
        #expect(error.code == .unreachable)
        #expect(error.message.hasPrefix("the handoff daemon did not answer in time"))
        #expect(error.message.contains("may still finish"))
        #expect(!error.message.contains("not reachable"))
    }

    @Test func aLostConnectionSaysTheDaemonIsNotReachable() {
        let error = ServiceErrorMapping.serviceError(DBusError(.disconnected, "the connection was closed"), bus: "system")
        #expect(error.message.hasPrefix("the handoff daemon is not reachable"))
    }
}
