import Rules

/// When a failed delivery is tried again (README, "Webhooks"): 1 s after the first failure, doubling, each delay
/// jittered by ±20 % so receivers coming back are not hit by every sender at once, never more than 10 min apart;
/// given up 24 h after the event.
public enum WebhookBackoff {
    public static let first: Milliseconds = 1000
    public static let longest: Milliseconds = 10 * 60 * 1000
    public static let giveUpAfter: Milliseconds = 24 * 60 * 60 * 1000

    /// The wait after `failures` failed attempts (1 or more), `random` in [0, 1) choosing the jitter.
    public static func delay(afterFailures failures: Int, random: Double) -> Milliseconds {
        let doublings = min(max(failures - 1, 0), 20)
        let base = min(first << Int64(doublings), longest)
        let factor = 0.8 + 0.4 * min(max(random, 0), 1)
        return min(Milliseconds((Double(base) * factor).rounded()), longest)
    }
}
