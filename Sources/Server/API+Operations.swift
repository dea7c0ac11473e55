import Foundation
import HTTP
import Rules
import Store

extension API {
    func registerOperations(in router: inout Router) {
        router.add("GET", "/healthz", sync: { _ throws(APIError) in .json(.ok, #"{"status":"ok"}"#, headers: ["Cache-Control": "no-store"]) })
        router.add("GET", "/readyz", sync: { _ throws(APIError) in
            // Recovery finishes before the listener opens; draining makes the daemon unready again.
            if isDraining() { throw APIError.unavailable("draining", "specd is shutting down") }
            // Writes are refused until a restart; reads still work, so /healthz stays 200 but traffic should move.
            if let failure = database.log.failed {
                throw APIError.unavailable("storage_failed", "a \(failure.underlying.call) on the log failed; no write is accepted until specd restarts",
                                           retryAfter: 30)
            }
            return .json(.ok, #"{"status":"ready"}"#, headers: ["Cache-Control": "no-store"])
        })
        router.add("GET", "/metrics", scope: .admin, sync: { _ throws(APIError) in metricsResponse() })
        router.add("GET", "/v1/admin/status", scope: .admin, sync: { _ throws(APIError) in status() })
        router.add("POST", "/v1/admin/reload", scope: .admin, sync: { _ throws(APIError) in try reload() })
        router.add("GET", "/openapi.json", sync: { _ throws(APIError) in .json(.ok, OpenAPIDocument.json) })
    }

    func status() -> HTTPResponse {
        let rulesStatus = rules.status
        var rulesObject: JSONObject = ["phase": .string(rulesStatus.phase.rawValue),
                                       "active": ["version": .string(rulesStatus.version),
                                                  "loadedAt": .string(ISO8601.format(Instant(seconds: rulesStatus.loadedAt.timeIntervalSince1970))),
                                                  "source": .string(rulesStatus.source)]]
        if !rulesStatus.error.isEmpty { rulesObject["error"] = .array(rulesStatus.error.map(\.json)) }
        let store: JSONObject = ["users": .int(database.store.userCount), "lastSeq": .int(Int(database.log.lastSeq)),
                                 "lastSnapshotSeq": .int(Int(database.lastSnapshotSeq)), "fsync": .string(database.options.fsync.rawValue),
                                 "fsyncs": .int(database.log.fsyncs), "failed": .bool(database.log.failed != nil)]
        let body: JSONValue = ["version": .string(Daemon.version), "rules": .object(rulesObject), "store": .object(store),
                               "server": ["openConnections": .int(openConnections()), "draining": .bool(isDraining())]]
        return .json(.ok, JSONWriter.write(body))
    }

    /// Loads, validates whole, swaps; on failure the previous set keeps serving and status shows the error.
    func reload() throws(APIError) -> HTTPResponse {
        guard let result = rules.reload(from: rulesPath, format: rulesFormat) else {
            throw APIError(.conflict, code: "reload_in_progress", message: "another reload is loading rules; retry when it finishes", retryable: true)
        }
        switch result {
        case .success(let set):
            metrics.increment("rule_reloads_total{result=\"loaded\"}")
            logger.info("rules reloaded", ["version": .string(set.version), "flags": .int(set.flagKeys.count)])
            live?.rulesReloaded(version: set.version)
            return .json(.ok, JSONWriter.write(["phase": "loaded", "version": .string(set.version)]))
        case .failure(let error):
            metrics.increment("rule_reloads_total{result=\"failed\"}")
            logger.warn("rules reload failed", ["errors": .int(error.errors.count)])
            var failure = APIError(.unprocessableContent, code: "invalid_rules",
                                   message: "the new rules have \(error.errors.count) error(s); the previous rules keep serving")
            failure.details = .array(error.diagnostics.map(\.json))
            throw failure
        }
    }

    func metricsResponse() -> HTTPResponse {
        let text = metrics.render(counters: [
            ("snapshot_failures_total", "Snapshots that could not be written or verified since start.", Double(database.snapshotFailures)),
        ], gauges: [
            ("users", "Users in memory.", Double(database.store.userCount)),
            ("log_last_seq", "Last log sequence number.", Double(database.log.lastSeq)),
            ("log_fsyncs", "Log fsyncs since start.", Double(database.log.fsyncs)),
            ("snapshot_seq", "Sequence number covered by the last snapshot.", Double(database.lastSnapshotSeq)),
            ("open_connections", "Open HTTP connections.", Double(openConnections())),
            ("storage_failed", "1 when a log write failed and writes are refused.", database.log.failed == nil ? 0 : 1),
            ("streams", "Live event streams.", Double(hub?.streamCount ?? 0)),
            ("streams_dropped_slow", "Streams closed because the client read too slowly.", Double(hub?.droppedSlowStreams ?? 0)),
        ])
        return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Array(text.utf8))
    }
}
