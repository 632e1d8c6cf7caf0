extension Duration {
    /// The duration in seconds, for the APIs that take a `TimeInterval`.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
