/// The status a command exits with, documented so scripts can rely on it.
///
/// The generic codes follow BSD `sysexits.h` where one fits (`usage` is `EX_USAGE`, 64). A program adds its own
/// codes as static members in an extension, each with a doc comment, and lists them in its help and manual.
public struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric status handed to `exit(3)`.
    public var rawValue: Int32

    /// Wraps a numeric exit status.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Wraps a numeric exit status.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// 0: the command did what was asked.
    public static let success = ExitCode(0)
    /// 1: the command failed for a reason no more specific code describes.
    public static let failure = ExitCode(1)
    /// 64 (`EX_USAGE`): the command line was wrong (unknown option, missing or bad value).
    public static let usage = ExitCode(64)
    /// 65 (`EX_DATAERR`): input data was malformed (for example a file that is not UTF-8 text).
    public static let dataError = ExitCode(65)
    /// 66 (`EX_NOINPUT`): a named input (file, note) does not exist or cannot be read.
    public static let noInput = ExitCode(66)
    /// 69 (`EX_UNAVAILABLE`): a service the command needs is not available.
    public static let unavailable = ExitCode(69)
    /// 70 (`EX_SOFTWARE`): an internal error; please report it.
    public static let software = ExitCode(70)
    /// 73 (`EX_CANTCREAT`): an output file could not be created.
    public static let cannotCreate = ExitCode(73)
    /// 74 (`EX_IOERR`): reading or writing failed.
    public static let ioError = ExitCode(74)
    /// 77 (`EX_NOPERM`): the operation is not permitted.
    public static let noPermission = ExitCode(77)

    /// True for ``success`` only.
    public var isSuccess: Bool { rawValue == 0 }

    /// The number, as printed in documentation.
    public var description: String { String(rawValue) }
}
