import Foundation
import Synchronization

/// Counters and a latency histogram in the Prometheus text format. Labels are route patterns and statuses, never
/// user ids: a series per user would grow without bound and let anyone with the metrics enumerate users.
public final class Metrics: Sendable {
    static let bucketBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1]

    struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var buckets = [Int](repeating: 0, count: Metrics.bucketBounds.count)
        var latencyCount = 0
        var latencySum = 0.0
        var counters: [String: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func observe(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            for (index, bound) in Metrics.bucketBounds.enumerated() where seconds <= bound { state.buckets[index] += 1 }
            state.latencyCount += 1
            state.latencySum += seconds
        }
    }

    public func increment(_ name: String, by amount: Int = 1) {
        state.withLock { $0.counters[name, default: 0] += amount }
    }

    public func counter(_ name: String) -> Int { state.withLock { $0.counters[name] ?? 0 } }

    /// The exposition text, with counters and gauges kept elsewhere supplied by the caller at scrape time.
    public func render(
        counters external: [(name: String, help: String, value: Double)] = [],
        gauges: [(name: String, help: String, value: Double)]
    ) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP specd_http_requests_total HTTP requests by route pattern, method and status.")
        lines.append("# TYPE specd_http_requests_total counter")
        let labelled = snapshot.requests.map { ("route=\"\($0.key.route)\",method=\"\($0.key.method)\",status=\"\($0.key.status)\"", $0.value) }
        for (labels, count) in labelled.sorted(by: { $0.0 < $1.0 }) { lines.append("specd_http_requests_total{\(labels)} \(count)") }
        lines.append("# HELP specd_http_request_duration_seconds Time from a complete request to its response.")
        lines.append("# TYPE specd_http_request_duration_seconds histogram")
        for (index, bound) in Metrics.bucketBounds.enumerated() {
            lines.append("specd_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(snapshot.buckets[index])")
        }
        lines.append("specd_http_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)")
        lines.append("specd_http_request_duration_seconds_sum \(snapshot.latencySum)")
        lines.append("specd_http_request_duration_seconds_count \(snapshot.latencyCount)")
        for name in snapshot.counters.keys.sorted() {
            lines.append("# TYPE specd_\(name) counter")
            lines.append("specd_\(name) \(snapshot.counters[name]!)")
        }
        for counter in external {
            lines.append("# HELP specd_\(counter.name) \(counter.help)")
            lines.append("# TYPE specd_\(counter.name) counter")
            lines.append("specd_\(counter.name) \(counter.value)")
        }
        for gauge in gauges {
            lines.append("# HELP specd_\(gauge.name) \(gauge.help)")
            lines.append("# TYPE specd_\(gauge.name) gauge")
            lines.append("specd_\(gauge.name) \(gauge.value)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
