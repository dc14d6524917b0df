extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval` (a `Double`) takes it.
    package var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
