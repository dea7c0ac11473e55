import Testing

@testable import Engine

/// The write path's atomic counters read as the named counters they replace.
@Suite struct MetricsCounterTests {
    @Test func counterNamed_isOneObjectPerName() {
        let metrics = Metrics()
        #expect(metrics.counter(named: "donations_total") === metrics.counter(named: "donations_total"))
        #expect(metrics.counter(named: "donations_total") !== metrics.counter(named: "context_writes_total"))
    }

    @Test func atomicAndNamedIncrements_ofOneName_addUp_onThePageAndInReads() {
        let metrics = Metrics()
        let counter = metrics.counter(named: "donations_total")
        counter.increment()
        counter.increment(by: 4)
        metrics.increment("donations_total", by: 2)
        #expect(metrics.counter("donations_total") == 7)
        let page = metrics.render(gauges: [])
        #expect(page.contains("\nspecd_donations_total 7\n"))
        #expect(page.components(separatedBy: "# TYPE specd_donations_total counter").count == 2)
    }

    @Test func aCounterNeverIncremented_isNotOnThePage() {
        let metrics = Metrics()
        _ = metrics.counter(named: "display_events_total")
        #expect(!metrics.render(gauges: []).contains("specd_display_events_total"))
        #expect(metrics.counter("display_events_total") == 0)
    }
}
