#if canImport(Glibc)
import Glibc
#endif

extension TCPLane {
    /// Why this process cannot use the fast lane at all, or nil when it can open TCP sockets and list the machine's
    /// addresses. A sandbox that leaves out `AF_INET`/`AF_INET6` (socket fails with EAFNOSUPPORT) or `AF_NETLINK`
    /// (getifaddrs fails) keeps every transfer on Bluetooth without any transfer failing, so the daemon says so when
    /// it starts rather than claim a lane it cannot use. Opens and closes one socket; sends nothing.
    package static func selfCheck() -> String? {
        var refused: [String] = []
        // IPv4 only: a kernel without IPv6 and a sandbox without AF_INET6 both answer EAFNOSUPPORT, and IPv4 alone
        // carries the lane.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd >= 0 {
            close(fd)
        } else {
            refused.append("socket(AF_INET): \(String(cString: strerror(errno)))")
        }
        var list: UnsafeMutablePointer<ifaddrs>?
        if getifaddrs(&list) == 0 {
            freeifaddrs(list)
        } else {
            refused.append("getifaddrs: \(String(cString: strerror(errno)))")
        }
        guard !refused.isEmpty else { return nil }
        return refused.joined(separator: "; ")
    }
}
