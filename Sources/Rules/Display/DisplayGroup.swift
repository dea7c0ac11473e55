/// A display group from the rule set's `groups` (docs/rules.md, "Display groups"): TipKit's `displayFrequency` and
/// `TipGroup` priority. `"*"` names the global group, which every display flag belongs to.
public struct DisplayGroup: Sendable, Equatable {
    public enum Order: String, Sendable, CaseIterable {
        /// A later member waits until every earlier one is invalidated (`TipGroup(.ordered)`).
        case ordered
        /// No order: each member stands on its own (`TipGroup(.firstAvailable)`).
        case firstAvailable
    }

    /// The name of the group that holds every display flag.
    public static let global = "*"

    public let name: String
    /// After any member was shown, how long the others wait (rolling from that `lastShown`). `0`: `immediate`.
    public let window: Milliseconds
    public let order: Order

    public init(name: String, window: Milliseconds, order: Order) {
        self.name = name
        self.window = window
        self.order = order
    }

    /// TipKit's named frequencies, fixed lengths (a day is 86 400 s, a month 30 days): the zone never matters.
    public static let frequencies: [String: Milliseconds] = [
        "immediate": 0, "hourly": 3_600_000, "daily": 86_400_000, "weekly": 604_800_000, "monthly": 2_592_000_000
    ]
}
