import FoundationEssentials

/// Who may use the daemon (Docs/privacy.md, "Other users of this machine"). One Unix user owns the trust group.
/// The owner is decided before any paired device exists, by the administrator (`handoffd --owner`) or by the first
/// caller of `Pair`, and is written to `owner.json` before the pairing runs. It is never guessed afterwards: paired
/// devices with no readable owner record lock the daemon to root.
public enum Ownership: Sendable, Equatable {
    /// No owner record and no paired device: the first caller of `Pair` or `AcceptPairing` claims the daemon.
    case unclaimed
    /// The trust group belongs to `uid`.
    case owned(uid: UInt32)
    /// Paired devices exist but the owner record is missing or unreadable: nobody but root is let in. `reason`
    /// says why and what the administrator does.
    case locked(reason: String)

    /// Root, who may always administer the daemon (it can read the state directory anyway).
    static let root: UInt32 = 0

    /// Whether `uid` may use every method: root always, the owner once there is one.
    public func admits(_ uid: UInt32) -> Bool {
        if uid == Self.root { return true }
        if case .owned(let owner) = self { return owner == uid }
        return false
    }
}

/// `owner.json`: the owner and how it was decided.
struct OwnerRecord: Codable, Sendable, Equatable {
    /// How the owner was decided.
    enum Origin: String, Codable, Sendable {
        /// `handoffd --owner`, by the administrator.
        case configured
        /// The first `handoff pair` on a daemon with no owner and no paired device.
        case claimed
        /// Moved from the `ownerUID` of an older `state.json`.
        case migrated
    }

    var uid: UInt32
    var origin: Origin
    var decidedAt: Date
}
