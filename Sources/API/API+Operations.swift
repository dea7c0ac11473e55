import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Store

extension API {
    func registerOperations(in router: inout Router) {
        router.add("GET", "/healthz", sync: { _ throws(APIError) in .json(.ok, #"{"status":"ok"}"#, headers: ["Cache-Control": "no-store"]) })
        router.add(
            "GET", "/readyz",
            sync: { _ throws(APIError) in
                // Recovery finishes before the listener opens; draining makes the daemon unready again.
                if transport.isDraining { throw APIError.unavailable("draining", "specd is shutting down") }
                // Writes are refused until a restart; reads still work, so /healthz stays 200 but traffic should move.
                if let failure = store.health.failure {
                    throw APIError.unavailable(
                        "storage_failed", "a \(failure.underlying.call) on the log failed; no write is accepted until specd restarts",
                        retryAfter: 30)
                }
                return .json(
                    .ok, #"{"status":"ready"}"#, headers: ["Cache-Control": "no-store", ClusterPeers.rulesVersionHeader: rules.current.version])
            })
        router.add("GET", "/metrics", scope: .admin, sync: { _ throws(APIError) in metricsResponse() })
        router.add("GET", "/v1/admin/status", scope: .admin, sync: { _ throws(APIError) in status() })
        router.add("POST", "/v1/admin/reload", scope: .admin, sync: { _ throws(APIError) in try reload() })
        router.add("GET", "/openapi.json", sync: { _ throws(APIError) in .json(.ok, OpenAPIDocument.json) })
    }

    func status() -> HTTPResponse {
        let rulesStatus = rules.status
        var rulesObject: JSONObject = [
            "phase": .string(rulesStatus.phase.rawValue),
            "active": [
                "version": .string(rulesStatus.version),
                "loadedAt": .string(ISO8601.format(Instant(seconds: rulesStatus.loadedAt.timeIntervalSince1970))),
                "source": .string(rulesStatus.source)
            ]
        ]
        if !rulesStatus.error.isEmpty { rulesObject["error"] = .array(rulesStatus.error.map(\.json)) }
        let health = store.health
        let storeObject: JSONObject = [
            "users": .int(health.users), "lastSeq": .int(Int(health.lastSeq)),
            "lastSnapshotSeq": .int(Int(health.lastSnapshotSeq)), "fsync": .string(health.fsync.rawValue),
            "fsyncs": .int(health.fsyncs), "failed": .bool(health.failure != nil)
        ]
        var body: JSONObject = [
            "version": .string(Release.version), "rules": .object(rulesObject), "store": .object(storeObject),
            "server": ["openConnections": .int(transport.openConnections), "draining": .bool(transport.isDraining)],
            "operations": engine.operationSummary
        ]
        if let cluster { body["cluster"] = clusterStatus(cluster) }
        return .json(.ok, JSONWriter.write(.object(body)))
    }

    /// Loads, validates whole, swaps; on failure the previous set keeps serving and status shows the error.
    func reload() throws(APIError) -> HTTPResponse {
        switch engine.reloadRules() {
        case .busy:
            throw APIError(.conflict, code: "reload_in_progress", message: "another reload is loading rules; retry when it finishes", retryable: true)
        case .loaded(let set):
            return .json(.ok, JSONWriter.write(["phase": "loaded", "version": .string(set.version)]))
        case .failed(let error):
            var failure = APIError(
                .unprocessableContent, code: "invalid_rules",
                message: "the new rules have \(error.errors.count) error(s); the previous rules keep serving")
            failure.details = .array(error.diagnostics.map(\.json))
            throw failure
        }
    }

    /// `GET /metrics`: the Prometheus text page (docs/api.md, "Metrics"), every family with HELP and TYPE once.
    func metricsResponse() -> HTTPResponse {
        let health = store.health
        let evaluations = rules.evaluationLedger.totals
        let families =
            [
                MetricFamily(
                    name: "specd_evaluations_total", help: "Flag answers served, by flag key.", kind: .counter,
                    samples: evaluations.map { .init(labels: [("flag", $0.flag)], value: Double($0.count)) })
            ] + ProcessMetrics.families()
        let text = metrics.render(
            counters: [
                ("snapshot_failures_total", "Snapshots that could not be written or verified since start.", Double(health.snapshotFailures)),
                ("accept_pauses_total", "Times accepting paused because file descriptors ran out.", Double(transport.acceptPauses)),
                ("log_fsyncs_total", "Log fsyncs since start.", Double(health.fsyncs)),
                ("streams_dropped_slow_total", "Streams closed because the client read too slowly.", Double(hub.droppedSlowStreams)),
                (
                    "streams_resume_forgotten_total", "Users whose resume state was forgotten early, past streams.resumeUsers.",
                    Double(hub.forgottenResumeUsers)
                ),
                ("answer_cache_hits_total", "One-flag reads answered with a kept answer.", Double(answers.hits)),
                ("answer_cache_misses_total", "One-flag reads that could have used a kept answer and computed it.", Double(answers.misses))
            ],
            gauges: [
                ("users", "Users in memory.", Double(health.users)),
                (
                    "users_encoded", "Users recovered from the snapshot and not read or written since, held as their records.",
                    Double(store.usersStillEncoded)
                ),
                ("log_last_seq", "Last log sequence number.", Double(health.lastSeq)),
                ("snapshot_seq", "Sequence number covered by the last snapshot.", Double(health.lastSnapshotSeq)),
                ("open_connections", "Open HTTP connections.", Double(transport.openConnections)),
                ("storage_failed", "1 when a log write failed and writes are refused.", health.failure == nil ? 0 : 1),
                ("streams", "Live event streams.", Double(hub.streamCount)),
                ("answer_cache_bytes", "Bytes of kept one-flag answers, counted against limits.answerCacheBytes.", Double(answers.bytes))
            ],
            families: families)
        return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Array(text.utf8))
    }
}
