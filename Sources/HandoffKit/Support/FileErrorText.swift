import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Error {
    /// A file system error as a short sentence: the C library's for the errno under FoundationEssentials'
    /// `CocoaError` (or of a `POSIXError`), otherwise the error's description. It stands in for
    /// `localizedDescription`, which needs full Foundation; the daemon's graph imports only FoundationEssentials
    /// (Docs/performance.md, Memory).
    package var fileErrorText: String {
        if let cocoa = self as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = self as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return String(describing: self)
    }
}
