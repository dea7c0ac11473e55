import Testing

@testable import Engine

/// Requests counted by registered series: the page reads as when each was counted by its strings.
@Suite struct MetricsRequestSeriesTests {
    @Test func requestSeries_isOneIndexPerRouteAndMethod() {
        let metrics = Metrics()
        let get = metrics.requestSeries(route: "/v1/a", method: "GET")
        #expect(metrics.requestSeries(route: "/v1/a", method: "GET").index == get.index)
        #expect(metrics.requestSeries(route: "/v1/a", method: "HEAD").index != get.index)
        #expect(metrics.requestSeries(route: "/v1/b", method: "GET").index != get.index)
    }

    @Test func aSeriesOfOtherMetrics_isNotCounted() {
        let metrics = Metrics()
        let other = Metrics()
        _ = metrics.requestSeries(route: "/v1/a", method: "GET")
        _ = other.requestSeries(route: "/v1/x", method: "GET")
        let foreign = other.requestSeries(route: "/v1/y", method: "GET")
        metrics.observe(foreign, status: 200, seconds: 0.001)
        let page = metrics.render(gauges: [])
        #expect(!page.contains("specd_http_requests_total{"))
        #expect(page.contains("specd_http_request_duration_seconds_count 0"))
    }

    @Test func statusesOfOneSeries_areCountedApart_andSortedOnThePage() {
        let metrics = Metrics()
        let series = metrics.requestSeries(route: "/v1/a", method: "GET")
        metrics.observe(series, status: 404, seconds: 0.001)
        metrics.observe(series, status: 200, seconds: 0.001)
        metrics.observe(series, status: 200, seconds: 0.001)
        metrics.observe(route: "/v1/a", method: "GET", status: 200, seconds: 0.001)
        // Registered, never answered: no sample.
        _ = metrics.requestSeries(route: "/v1/quiet", method: "GET")
        let page = metrics.render(gauges: [])
        let ok = #"specd_http_requests_total{route="/v1/a",method="GET",status="200"} 3"#
        let missing = #"specd_http_requests_total{route="/v1/a",method="GET",status="404"} 1"#
        #expect(page.contains(ok + "\n" + missing))
        #expect(!page.contains("/v1/quiet"))
    }

    /// Each observation lands in one bucket; the page's buckets are cumulative (`le`), exactly at a bound included.
    @Test func latencyBuckets_areCumulative_withBoundsInclusive() {
        let metrics = Metrics()
        let series = metrics.requestSeries(route: "/v1/a", method: "GET")
        for seconds in [0.00005, 0.0001, 0.0002, 0.003, 2.0, -1.0, .nan] { metrics.observe(series, status: 200, seconds: seconds) }
        let page = metrics.render(gauges: [])
        let expected: [(String, Int)] = [
            ("0.0001", 3), ("0.00025", 4), ("0.0005", 4), ("0.001", 4), ("0.0025", 4), ("0.005", 5), ("0.01", 5),
            ("0.05", 5), ("0.1", 5), ("0.5", 5), ("1.0", 5), ("+Inf", 7)
        ]
        for (bound, count) in expected {
            #expect(page.contains(#"specd_http_request_duration_seconds_bucket{le="\#(bound)"} \#(count)"#), "le \(bound)")
        }
        #expect(page.contains("specd_http_request_duration_seconds_count 7"))
    }
}
