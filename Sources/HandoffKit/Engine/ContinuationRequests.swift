/// What the device that continues an activity asks of its source, carried in the transfer's last frame (a DONE
/// with its requests, protocol.md §4) and handed to the source's ``UserActivityDelegate``. A source that does not
/// know a request ignores it; a source older than the requests drops such a DONE and hears of the continue, without
/// the requests, from the plain DONE that always follows it.
public struct ContinuationRequests: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Pause what the source plays (`handoff continue --pause-source`): the song moves, it does not play twice.
    public static let pauseSource = ContinuationRequests(rawValue: 1 << 0)
}
