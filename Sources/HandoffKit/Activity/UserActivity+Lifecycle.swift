extension UserActivity {
    /// Makes this the engine's current activity and advertises it to trusted peers.
    /// - Throws: `undeclaredActivityType`, `userInfoTooLarge` (checked before anything is advertised),
    ///   `invalidActivity` after `invalidate()`.
    public func becomeCurrent(in engine: HandoffEngine) async throws(HandoffError) {
        try await engine.makeCurrent(self)
    }

    /// Stops offering this activity if it is current in `engine`; it may become current again later.
    public func resignCurrent(in engine: HandoffEngine) async {
        await engine.resign(self)
    }

    /// Stops offering this activity for good; it can never become current again.
    public func invalidate(in engine: HandoffEngine) async {
        await engine.resign(self)
        markInvalid()
    }
}
