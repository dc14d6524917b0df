import HandoffLane
import Testing

/// handoffd's start-up check of the fast lane (`TCPLane.selfCheck()`): where the process may open TCP sockets and
/// list the interfaces, as this test process may, it finds nothing to say. The refusal it reports under a sandbox
/// without AF_INET is shown in the VM (scripts/vm2/flow-lane.sh checks the installed daemon's line).
struct SelfCheckTests {
    @Test func aProcessThatMayOpenTCPSocketsHasNothingToReport() {
        #expect(TCPLane.selfCheck() == nil)
    }
}
