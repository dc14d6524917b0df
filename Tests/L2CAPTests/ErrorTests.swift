import Testing

@testable import L2CAP

#if canImport(Glibc)
import Glibc
#endif

@Suite("L2CAPError")
struct ErrorTests {
    @Test("each errno the kernel gives maps to the kind a caller decides on", arguments: [
        (EAFNOSUPPORT, L2CAPError.Kind.unsupported), (EPROTONOSUPPORT, .unsupported),
        (ESOCKTNOSUPPORT, .unsupported), (EOPNOTSUPP, .unsupported),
        (ECONNREFUSED, .refused),
        (EHOSTUNREACH, .unreachable), (EHOSTDOWN, .unreachable), (ENETDOWN, .unreachable),
        (ENETUNREACH, .unreachable), (ENODEV, .unreachable), (EADDRNOTAVAIL, .unreachable),
        (ECONNRESET, .reset), (EPIPE, .reset), (ENOTCONN, .reset), (ECONNABORTED, .reset), (ENOLINK, .reset),
        (ESHUTDOWN, .reset),
        (ETIMEDOUT, .timedOut),
        (EMSGSIZE, .messageTooLong),
        (EBADF, .closed),
        (EINVAL, .failed), (EACCES, .failed), (EADDRINUSE, .failed), (ENOMEM, .failed), (EBADFD, .failed),
    ] as [(Int32, L2CAPError.Kind)])
    func mapping(_ code: Int32, _ kind: L2CAPError.Kind) {
        #expect(L2CAPError.kind(errno: code) == kind)
        let error = L2CAPError(errno: code, "L2CAP connect to AA:BB:CC:DD:EE:FF (public) psm 0x0081")
        #expect(error.kind == kind)
        #expect(error.errno == code)
    }

    @Test("the message says what was done, the system's words and the errno's name")
    func message() {
        let error = L2CAPError(errno: ECONNREFUSED, "L2CAP connect to AA:BB:CC:DD:EE:FF (public) psm 0x0081")
        #expect(error.description == "L2CAP connect to AA:BB:CC:DD:EE:FF (public) psm 0x0081: Connection refused "
            + "(ECONNREFUSED)")
        #expect(L2CAPError.describe(errno: 4242).contains("4242"))
    }
}
