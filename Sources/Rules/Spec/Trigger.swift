/// A compiled trigger (docs/rules.md, "Triggers"). Only the decision lives here; firing writes to the store, so it
/// is the engine's business.
public struct Trigger: Sendable, Equatable {
    public let key: String
    /// Events that cause an evaluation; empty means every donation.
    public let on: [String]
    public let when: Spec
    public let throttle: CalendarPeriod?
    public let delay: Milliseconds?
    public let edge: Bool
    public let source: JSONValue

    public init(key: String, on: [String], when: Spec, throttle: CalendarPeriod?, delay: Milliseconds?, edge: Bool, source: JSONValue) {
        self.key = key
        self.on = on
        self.when = when
        self.throttle = throttle
        self.delay = delay
        self.edge = edge
        self.source = source
    }

    public func listens(to event: String) -> Bool { on.isEmpty || on.contains(event) }
}
