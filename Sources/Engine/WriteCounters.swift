/// The unlabelled counters of the write path (`specd_donations_total` and its kin, docs/api.md "Metrics").
struct WriteCounters: Sendable {
    let donations: Metrics.Counter
    let contextWrites: Metrics.Counter
    let displayEvents: Metrics.Counter
    let triggerFires: Metrics.Counter

    init(_ metrics: Metrics) {
        donations = metrics.counter(named: "donations_total")
        contextWrites = metrics.counter(named: "context_writes_total")
        displayEvents = metrics.counter(named: "display_events_total")
        triggerFires = metrics.counter(named: "trigger_fires_total")
    }
}
