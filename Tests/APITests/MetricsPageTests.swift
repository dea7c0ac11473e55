import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import Engine
@testable import specd

/// The whole `/metrics` page read by a strict Prometheus text-format parser (docs/api.md, "Metrics").
@Suite(.serialized) struct MetricsPageTests {
    /// A flag key with a quote and a backslash: keys come from the operator's rules and are escaped on the page.
    static let rules = #"{"flags": {"plain": {"when": {"segment": "vip"}}, "q\"uo\\te": {"when": {"always": true}}}}"#
    static let oddKey = #"q"uo\te"#

    @Test func wholePage_parsesStrictly_afterTrafficOfEveryKind() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("GET", "/v1/users/u1/flags/plain")
        _ = try api.call("GET", "/v1/users/u1/flags")
        _ = try api.call("POST", "/v1/users/u1/events/appStarted")
        _ = try api.call("POST", "/ofrep/v1/evaluate/flags", json: #"{"context": {"targetingKey": "u1"}}"#)
        _ = try api.call("POST", "/v1/evaluate", json: #"{"context": {}, "flags": ["plain", "nope"]}"#)
        _ = try api.call("GET", "/v1/nope")
        // Families others add: an undescribed counter, a labelled one with a hostile value, one not named _total.
        api.engine.metrics.increment("webhook_deliveries_total", labels: ["outcome": "failed \"500\"\n\\"])
        api.engine.metrics.describe("webhook_deliveries_total", help: "Webhook deliveries by outcome.\nSecond line \\ too.")
        api.engine.metrics.increment("forwarded_requests_total", labels: [("member", "1")], by: 3)
        api.engine.metrics.increment("legacy_count")
        let reply = try api.call("GET", "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let page = PrometheusTextParser.parse(reply.text)
        #expect(page.problems == [], "\(reply.text)")
        for family in [
            "specd_http_requests_total", "specd_http_request_duration_seconds", "specd_evaluations_total", "specd_donations_total",
            "specd_log_fsyncs_total", "specd_streams", "specd_streams_dropped_slow_total", "specd_log_bytes", "specd_replay_duration_seconds",
            "specd_snapshot_age_seconds", "process_resident_memory_bytes", "process_open_fds", "process_cpu_seconds_total",
            "process_start_time_seconds", "process_max_fds", "specd_webhook_deliveries_total", "specd_forwarded_requests_total",
            "specd_legacy_count_total", "specd_users", "specd_users_encoded"
        ] {
            #expect(page.families[family] != nil, "\(family) missing")
        }
        #expect(page.families["specd_log_fsyncs"] == nil)
        #expect(page.families["specd_evaluations_total"]?.type == "counter")
        #expect(page.families["specd_webhook_deliveries_total"]?.help == #"Webhook deliveries by outcome.\nSecond line \\ too."#)
        #expect(page.sample("specd_webhook_deliveries_total", ["outcome": "failed \"500\"\n\\"]) == 1)
        #expect(page.sample("specd_forwarded_requests_total", ["member": "1"]) == 3)
        #expect((page.sample("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((page.sample("process_open_fds") ?? 0) > 0)
        #expect((page.sample("process_start_time_seconds") ?? 0) > 1_700_000_000)
        #expect((page.sample("specd_log_bytes") ?? 0) > 0)
        // No user id anywhere on the page.
        #expect(!reply.text.contains("u1"))
    }

    @Test func evaluationsByFlag_countEveryAnswer_escapeTheKey_andSurviveAReload() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("GET", "/v1/users/u1/flags/plain")
        _ = try api.call("GET", "/v1/users/u1/flags")
        _ = try api.call("POST", "/ofrep/v1/evaluate/flags/plain", json: "{}")
        _ = try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}")
        _ = try api.call("POST", "/v1/evaluate", json: #"{"context": {}, "flags": ["plain", "nope"]}"#)
        var page = PrometheusTextParser.parse(try api.call("GET", "/metrics").text)
        #expect(page.sample("specd_evaluations_total", ["flag": "plain"]) == 5)
        #expect(page.sample("specd_evaluations_total", ["flag": Self.oddKey]) == 2)
        #expect(page.problems == [])
        #expect(try api.call("GET", "/metrics").text.contains(#"specd_evaluations_total{flag="q\"uo\\te"} 2"#))
        // A reload renumbers nothing away: the counters go on from where they were.
        #expect(try api.call("POST", "/v1/admin/reload").status == 200)
        _ = try api.call("GET", "/v1/users/u1/flags/plain")
        page = PrometheusTextParser.parse(try api.call("GET", "/metrics").text)
        #expect(page.sample("specd_evaluations_total", ["flag": "plain"]) == 6)
    }

    @Test func parser_refusesWhatPrometheusRefuses() {
        let broken: [(String, String)] = [
            ("specd_x_total 1\n", "sample before its family's TYPE"),
            ("# HELP a_total h\n# TYPE a_total counter\n# TYPE a_total counter\na_total 1\n", "second TYPE"),
            ("# HELP a h\n# TYPE a counter\na 1\n", "a counter not named _total"),
            ("# HELP a h\n# TYPE a gauge\na{l=\"x\\q\"} 1\n", "bad escape in a label value"),
            ("# HELP a h\n# TYPE a gauge\na{1l=\"x\"} 1\n", "bad label name 1l"),
            ("# HELP a h\n# TYPE a gauge\na inf\n", "bad value"),
            ("# TYPE a gauge\na 1\n", "a: no HELP"),
            ("# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "bucket counts decrease"),
            ("# HELP h h\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n", "is not _count"),
            ("# HELP a h\n# TYPE a gauge\na 1\n# HELP b h\n# TYPE b gauge\nb 1\na{x=\"1\"} 2\n", "outside its family's block")
        ]
        for (text, problem) in broken {
            let found = PrometheusTextParser.parse(text).problems
            #expect(found.contains { $0.contains(problem) }, "\(text) gave \(found)")
        }
    }

    @Test(arguments: ["plain", "a\"b", "back\\slash", "line\nfeed", "é\u{1F600}", "\\\"\n"])
    func labelValues_roundTripThroughTheEscapes(value: String) {
        let metrics = Metrics()
        metrics.increment("things_total", labels: ["key": value])
        let page = PrometheusTextParser.parse(metrics.render(gauges: []))
        #expect(page.problems == [])
        #expect(page.sample("specd_things_total", ["key": value]) == 1)
    }

    @Test func increment_withLabelsWrittenInTheName_isTheSameSeriesAsWithLabelPairs() {
        let metrics = Metrics()
        metrics.increment(#"rule_reloads_total{result="loaded"}"#)
        metrics.increment("rule_reloads_total", labels: ["result": "loaded"])
        #expect(metrics.counter(#"rule_reloads_total{result="loaded"}"#) == 2)
        let text = metrics.render(gauges: [])
        #expect(text.contains(#"specd_rule_reloads_total{result="loaded"} 2"#))
        #expect(text.components(separatedBy: "# TYPE specd_rule_reloads_total counter").count == 2)
    }
}
