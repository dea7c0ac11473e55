import Foundation
import Synchronization

/// Counters, gauges and a latency histogram in the Prometheus text format (docs/api.md, "Metrics"). Labels are
/// route patterns, statuses, results and flag keys, never user ids: a series per user would grow without bound and
/// let anyone with the metrics enumerate users.
///
/// Counters are families of `_total` series, each family with its HELP and TYPE once: `increment("x_total")` for
/// an unlabelled one, `increment("x_total", labels: ["result": "ok"])` for a labelled one, `describe` for its HELP.
/// Gauges read at scrape time are registered with `addGauge`.
public final class Metrics: Sendable {
    static let bucketBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1]

    struct RequestKey: Hashable {
        let route: String
        let method: String
    }

    /// A route pattern and method, registered once (`requestSeries`): a request is then counted by index, where
    /// hashing its pattern and method strings into a dictionary per request cost about a thousand instructions.
    public struct RequestSeries: Sendable {
        let index: Int
        /// The `Metrics` that registered it: a series is an index into its owner's table only.
        let owner: ObjectIdentifier
    }

    /// A gauge read when the page is scraped; `nil` leaves the family without a sample (nothing known yet).
    public typealias GaugeReading = @Sendable () -> Double?

    private struct State {
        /// Every registered route and method, by series index, and the index of each.
        var series: [RequestKey] = []
        var seriesIndex: [RequestKey: Int] = [:]
        /// By series index: the count of each status seen, in the order first seen (a route answers few statuses).
        var statusCounts: [[(status: Int, count: Int)]] = []
        /// Observations by the first bucket whose bound they are within (the last slot: past every bound); made
        /// cumulative on the page, so an observation costs one increment, not one per bucket above it.
        var bucketHits = [Int](repeating: 0, count: Metrics.bucketBounds.count + 1)
        var latencyCount = 0
        var latencySum = 0.0
        /// Unlabelled counters by name (without the `specd_` prefix): the write path counts every write here, so
        /// it costs one string hash, as it always did.
        var plain: [String: Int] = [:]
        /// Labelled counter families by name, each series by its labels.
        var labelled: [String: [Labels: Int]] = [:]
        var help: [String: String] = Metrics.knownHelp
        var gauges: [(name: String, help: String, read: GaugeReading)] = []
    }

    /// A series' labels, in the order given: two increments with the same pairs name the same series.
    struct Labels: Hashable {
        let pairs: [Pair]

        struct Pair: Hashable {
            let name: String
            let value: String
        }

        init(_ pairs: [(String, String)]) { self.pairs = pairs.map { Pair(name: $0.0, value: $0.1) } }
    }

    private let state = Mutex(State())

    /// An unlabelled counter bumped on every write: an atomic add, where `increment(_:)` takes the lock and hashes
    /// the name. Shown on the page like any counter once it is nonzero.
    public final class Counter: Sendable {
        let value = Atomic<Int>(0)

        public func increment(by amount: Int = 1) { value.add(amount, ordering: .relaxed) }
    }

    private let counters = Mutex<[String: Counter]>([:])

    /// The counter `name` (no labels): one object per name, however often asked.
    public func counter(named name: String) -> Counter {
        counters.withLock { counters in
            if let counter = counters[name] { return counter }
            let counter = Counter()
            counters[name] = counter
            return counter
        }
    }

    /// `plain` with the atomic counters' nonzero values added in, as the page and `counter(_:)` read it.
    private func plainCounts(_ plain: [String: Int]) -> [String: Int] {
        var plain = plain
        for (name, counter) in counters.withLock({ $0 }) {
            let value = counter.value.load(ordering: .relaxed)
            if value != 0 { plain[name, default: 0] += value }
        }
        return plain
    }

    public init() {}

    /// The series of `route` (a pattern) and `method`: the same one however often asked.
    public func requestSeries(route: String, method: String) -> RequestSeries {
        let key = RequestKey(route: route, method: method)
        return state.withLock { state in
            if let index = state.seriesIndex[key] { return RequestSeries(index: index, owner: ObjectIdentifier(self)) }
            state.series.append(key)
            state.statusCounts.append([])
            state.seriesIndex[key] = state.series.count - 1
            return RequestSeries(index: state.series.count - 1, owner: ObjectIdentifier(self))
        }
    }

    public func observe(route: String, method: String, status: Int, seconds: Double) {
        observe(requestSeries(route: route, method: method), status: status, seconds: seconds)
    }

    /// Counts one response of the series and its latency. A series another `Metrics` registered is not counted
    /// (a caller's mix-up must not count into another route, or index past the table).
    public func observe(_ series: RequestSeries, status: Int, seconds: Double) {
        guard series.owner == ObjectIdentifier(self) else { return }
        let bounds = Metrics.bucketBounds
        var bucket = 0
        while bucket < bounds.count, !(seconds <= bounds[bucket]) { bucket += 1 }
        state.withLock { state in
            Self.count(status, in: &state.statusCounts[series.index])
            state.bucketHits[bucket] += 1
            state.latencyCount += 1
            state.latencySum += seconds
        }
    }

    private static func count(_ status: Int, in counts: inout [(status: Int, count: Int)]) {
        for index in counts.indices where counts[index].status == status {
            counts[index].count += 1
            return
        }
        counts.append((status, 1))
    }

    /// Counts `amount` in the counter `name` (`specd_` is prefixed on the page). A name may still carry its labels
    /// written out, `rule_reloads_total{result="loaded"}`, as earlier callers do.
    public func increment(_ name: String, by amount: Int = 1) {
        guard name.utf8.last == UInt8(ascii: "}") else {
            state.withLock { $0.plain[name, default: 0] += amount }
            return
        }
        let (family, labels) = Self.split(name)
        increment(family, labels: labels, by: amount)
    }

    /// Counts `amount` in the series of counter `family` with `labels` (values are escaped on the page).
    public func increment(_ family: String, labels: KeyValuePairs<String, String>, by amount: Int = 1) {
        increment(family, labels: labels.map { ($0.key, $0.value) }, by: amount)
    }

    public func increment(_ family: String, labels: [(String, String)], by amount: Int = 1) {
        guard !labels.isEmpty else {
            state.withLock { $0.plain[family, default: 0] += amount }
            return
        }
        let key = Labels(labels)
        state.withLock { $0.labelled[family, default: [:]][key, default: 0] += amount }
    }

    /// The HELP text of a counter family (a family never described gets a generic one).
    public func describe(_ family: String, help: String) {
        state.withLock { $0.help[family] = help }
    }

    /// A gauge read at every scrape, such as a size on disk (`specd_` is prefixed on the page).
    public func addGauge(_ name: String, help: String, read: @escaping GaugeReading) {
        state.withLock { $0.gauges.append((name, help, read)) }
    }

    /// The value of a counter: `name` as given to `increment(_:by:)`, labels written out or none.
    public func counter(_ name: String) -> Int {
        let (family, labels) = Self.split(name)
        if labels.isEmpty { return plainCounts(state.withLock { $0.plain })[family] ?? 0 }
        return state.withLock { $0.labelled[family]?[Labels(labels)] ?? 0 }
    }

    /// The exposition text: this object's own families, then `families` and the counters and gauges kept
    /// elsewhere, supplied by the caller at scrape time. Families with one name are merged, so each has its HELP
    /// and TYPE once.
    public func render(
        counters external: [(name: String, help: String, value: Double)] = [],
        gauges: [(name: String, help: String, value: Double)],
        families extra: [MetricFamily] = []
    ) -> String {
        var snapshot = state.withLock { $0 }
        snapshot.plain = plainCounts(snapshot.plain)
        var families: [MetricFamily] = []
        let requests = snapshot.series.indices.flatMap { index in
            snapshot.statusCounts[index].map { (key: snapshot.series[index], status: $0.status, count: $0.count) }
        }.sorted { ($0.key.route, $0.key.method, $0.status) < ($1.key.route, $1.key.method, $1.status) }
        families.append(
            MetricFamily(
                name: "specd_http_requests_total", help: "HTTP requests by route pattern, method and status.", kind: .counter,
                samples: requests.map {
                    .init(labels: [("route", $0.key.route), ("method", $0.key.method), ("status", String($0.status))], value: Double($0.count))
                }))
        var within = 0
        var latency = Metrics.bucketBounds.enumerated().map { index, bound in
            within += snapshot.bucketHits[index]
            return MetricFamily.Sample(suffix: "_bucket", labels: [("le", String(bound))], value: Double(within))
        }
        latency.append(.init(suffix: "_bucket", labels: [("le", "+Inf")], value: Double(snapshot.latencyCount)))
        latency.append(.init(suffix: "_sum", value: snapshot.latencySum))
        latency.append(.init(suffix: "_count", value: Double(snapshot.latencyCount)))
        families.append(
            MetricFamily(
                name: "specd_http_request_duration_seconds", help: "Time from a complete request to its response.", kind: .histogram,
                samples: latency))
        for family in Set(snapshot.plain.keys).union(snapshot.labelled.keys).sorted() {
            var samples: [MetricFamily.Sample] = snapshot.plain[family].map { [.init(value: Double($0))] } ?? []
            let series = (snapshot.labelled[family] ?? [:]).sorted { Self.order($0.key, $1.key) }
            samples += series.map { .init(labels: $0.key.pairs.map { ($0.name, $0.value) }, value: Double($0.value)) }
            families.append(
                MetricFamily(
                    name: "specd_" + Self.counterName(family), help: snapshot.help[family] ?? "Count of \(family).", kind: .counter,
                    samples: samples))
        }
        for counter in external {
            families.append(MetricFamily(name: "specd_" + Self.counterName(counter.name), help: counter.help, kind: .counter, value: counter.value))
        }
        for gauge in gauges {
            families.append(MetricFamily(name: "specd_" + gauge.name, help: gauge.help, kind: .gauge, value: gauge.value))
        }
        for gauge in snapshot.gauges {
            families.append(
                MetricFamily(name: "specd_" + gauge.name, help: gauge.help, kind: .gauge, samples: gauge.read().map { [.init(value: $0)] } ?? []))
        }
        families += extra
        var text = ""
        for family in Self.merged(families) { family.write(into: &text) }
        return text
    }

    /// Families of one name merged into the first (its HELP and TYPE), samples in order.
    static func merged(_ families: [MetricFamily]) -> [MetricFamily] {
        var result: [MetricFamily] = []
        var index: [String: Int] = [:]
        for family in families {
            if let at = index[family.name] {
                result[at].samples += family.samples
            } else {
                index[family.name] = result.count
                result.append(family)
            }
        }
        return result
    }

    /// Counters end in `_total` on the page whatever name they were counted under.
    static func counterName(_ name: String) -> String { name.hasSuffix("_total") ? name : name + "_total" }

    static func order(_ a: Labels, _ b: Labels) -> Bool {
        a.pairs.lexicographicallyPrecedes(b.pairs) { ($0.name, $0.value) < ($1.name, $1.value) }
    }

    /// `family{a="x",b="y"}` into the family and its label pairs; a name with no braces has none. A value may hold
    /// an escaped quote (`\"`), which ends no value.
    static func split(_ name: String) -> (family: String, labels: [(String, String)]) {
        guard let open = name.firstIndex(of: "{"), name.last == "}" else { return (name, []) }
        let family = String(name[..<open])
        var labels: [(String, String)] = []
        var rest = Substring(name[name.index(after: open)..<name.index(before: name.endIndex)])
        while let equals = rest.firstIndex(of: "=") {
            let label = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: ", "))
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { break }
            rest = rest.dropFirst()
            var value = ""
            var escaped = false
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
            }
            labels.append((label, value))
        }
        return (family, labels)
    }

    /// HELP texts of the counters the daemon counts, so their families read well before anything describes them.
    static let knownHelp: [String: String] = [
        "donations_total": "Donations written.",
        "context_writes_total": "Context updates, donation resets and erases written.",
        "display_events_total": "Display events written.",
        "trigger_fires_total": "Trigger fires, immediate and delayed.",
        "rule_reloads_total": "Rule reloads by result (loaded, failed).",
        "streams_opened_total": "Event streams opened.",
        "track_events_total": "OpenFeature track calls turned into donations.",
        "pending_fires_cancelled_total": "Pending delayed trigger fires cancelled by an operator.",
        "stream_tickets_issued_total": "One-time stream tickets issued.",
        "stream_tickets_redeemed_total": "Stream tickets that opened their stream.",
        "stream_tickets_refused_total": "Stream tickets refused: unknown, expired, reused or for another stream.",
        "stream_tickets_full_total": "Ticket requests refused because the table of waiting tickets was full.",
        "forwarded_requests_total": "Cluster mode: requests forwarded to the member that owns their user.",
        "forward_failures_total": "Cluster mode: forwards that could not reach the owner (answered 503).",
        "forward_refused_total": "Cluster mode: forwarded requests refused with 421 (membership disagreement).",
        "webhook_deliveries_total": "Webhook delivery attempts by outcome (delivered, failed, dead_lettered).",
        "webhook_events_enqueued_total": "Events written to the webhook outbox.",
        "webhook_events_dropped_total": "Events not enqueued because the webhook outbox was full.",
        "webhook_outbox_failures_total": "Webhook outbox writes that failed."
    ]
}
