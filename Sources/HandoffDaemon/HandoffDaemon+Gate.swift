import FoundationEssentials
import HandoffBusContract
import HandoffShared

/// The gate of the D-Bus API: the one place that decides whether a caller may use a method (Docs/protocol.md,
/// "The gate: the owner"). ``method(_:_:_:body:)`` calls ``admit(_:to:_:)`` before every method's body.
extension HandoffDaemon {
    /// What a method asks of its caller.
    enum Access: Sendable, Equatable {
        /// Anyone: only what a stranger may see (Status answers the rest to the owner and root only).
        case anyone
        /// The owner or root; on a daemon with no owner yet, any caller, who claims it (`Pair`, `AcceptPairing`).
        case claim
        /// The owner or root.
        case owner
    }

    /// Lets `uid` call `member`, or throws AccessDenied saying why. A claim writes `owner.json` here, before the
    /// pairing runs and so before any paired device can be saved; when that write fails the call fails with it.
    /// Runs on the actor without suspending, so of two callers claiming at once exactly one becomes the owner.
    func admit(_ uid: UInt32, to access: Access, _ member: String) throws(DaemonError) {
        if access == .anyone { return }
        if access == .claim, ownership == .unclaimed { return try claim(for: uid) }
        if ownership.admits(uid) { return }
        switch ownership {
        case .owned(let owner):
            throw DaemonError.accessDenied("user \(uid) may not call \(member): handoff on this machine belongs to "
                + "user \(owner); ask an administrator (handoffd --owner) to change that")
        case .locked(let reason):
            throw DaemonError.accessDenied("user \(uid) may not call \(member): \(reason)")
        case .unclaimed:
            throw DaemonError.accessDenied("user \(uid) may not call \(member): handoff on this machine has no owner "
                + "yet; the first user to run 'handoff pair' owns it")
        }
    }

    /// Makes `uid` the owner of an unclaimed daemon: on disk first, then in memory.
    private func claim(for uid: UInt32) throws(DaemonError) {
        let record = OwnerRecord(uid: uid, origin: .claimed, decidedAt: clock.date)
        do {
            try state.saveOwner(record)
        } catch {
            logger.error("cannot record user \(uid) as the owner: \(ErrorChain.text(error))")
            throw DaemonError.failed("cannot record user \(uid) as this device's owner; nothing was paired", cause: error)
        }
        ownership = .owned(uid: uid)
        logger.log("user \(uid) claimed this device: it now belongs to them")
    }
}
