import Dispatch
import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// `GET /v1/users/{u}/history` and `GET /v1/users/{u}/history/{seq}/explain/{key}` (docs/api.md, "History").
///
/// Threads: the path and query are checked on the loop; the read — a pass over the retained log, and over a
/// snapshot for the base — runs on one serial queue of its own, so a large log never holds a loop, and several
/// history requests at once queue behind each other instead of reading the log side by side. The answer reaches
/// the connection through its `ResponseSink`, which hops back to the connection's loop.
extension API {
    func registerHistory(in router: inout Router) {
        router.add("GET", "/v1/users/{user}/history", scope: .evaluate) { request, sink in history(request, sink) }
        router.add("GET", "/v1/users/{user}/history/{seq}/explain/{key}", scope: .evaluate) { request, sink in explainAt(request, sink) }
    }

    func history(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let limit = try Self.historyLimit(request.query("limit"))
            let before = try request.query("before").map { text throws(APIError) in try Self.seq(text, field: "before") }
            let engine = engine
            historyQueue.async {
                do throws(HistoryError) {
                    let page = try engine.history(of: user, limit: limit, before: before)
                    sink.send(.json(.ok, JSONWriter.write(Self.historyJSON(page)), headers: ["Cache-Control": "no-store"]))
                } catch {
                    sink.send(Self.historyError(error, user: user, seq: nil, key: nil).response)
                }
            }
        } catch {
            sink.send(error.response)
        }
    }

    func explainAt(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let seq = try Self.seq(request.parameter("seq"), field: "seq")
            let key = request.parameter("key")
            let version = try appVersion(request)
            let engine = engine
            let rulesVersion = rules.current.version
            historyQueue.async {
                do throws(HistoryError) {
                    let explained = try engine.explain(user: user, seq: seq, key: key, appVersion: version)
                    var body: JSONObject = [
                        "user": .string(user), "seq": .int(Int(clamping: seq)), "at": .string(ISO8601.format(explained.at)),
                        "key": .string(key)
                    ]
                    if case .object(let members) = explained.evaluation.json { for (name, value) in members { body[name] = value } }
                    body["explain"] = explained.explain
                    body["rules"] = "current"
                    body["rulesVersion"] = .string(rulesVersion)
                    body["rebuiltFrom"] = [
                        "snapshotSeq": .int(Int(clamping: explained.baseSeq)), "replayedRecords": .int(explained.replayed)
                    ]
                    body["now"] = explained.now.json
                    sink.send(.json(.ok, JSONWriter.write(.object(body)), headers: ["Cache-Control": "no-store"]))
                } catch {
                    sink.send(Self.historyError(error, user: user, seq: seq, key: key).response)
                }
            }
        } catch {
            sink.send(error.response)
        }
    }

    /// `{user, records, before, oldest, lastSeq, compacted, rules}`.
    static func historyJSON(_ page: HistoryPage) -> JSONValue {
        [
            "user": .string(page.user), "records": .array(page.entries.map(\.json)),
            "before": page.nextBefore.map { .int(Int(clamping: $0)) } ?? .null,
            "oldest": .int(Int(clamping: page.oldestSeq)), "lastSeq": .int(Int(clamping: page.lastSeq)),
            "compacted": .bool(page.compacted), "rules": "current"
        ]
    }

    /// `limit`: 1 to 500, 50 when absent.
    static func historyLimit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return Engine.historyDefaultLimit }
        let maximum = Engine.historyMaximumLimit
        guard let value = decimal(text), value >= 1, value <= UInt64(maximum) else {
            throw APIError.invalidField("limit", "limit must be an integer from 1 to \(maximum)")
        }
        return Int(value)
    }

    /// A log sequence number: 1 or more, decimal digits only.
    static func seq(_ text: String, field: String) throws(APIError) -> UInt64 {
        guard let value = decimal(text), value >= 1 else {
            throw APIError.invalidField(field, "\(field) must be a log sequence number (an integer of at least 1)")
        }
        return value
    }

    /// Digits only (no sign, no spaces), at most 18 of them so the value always fits.
    static func decimal(_ text: String) -> UInt64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(text)
    }

    static func historyError(_ error: HistoryError, user: String, seq: UInt64?, key: String?) -> APIError {
        switch error {
        case .userNotFound:
            return APIError(
                .notFound, code: "user_not_found", message: "no user '\(user)' (never written, or erased: erased users have no history)",
                field: "user")
        case .flagNotFound:
            return APIError(.notFound, code: "flag_not_found", message: "no flag named '\(key ?? "")'", field: "key")
        case .compacted(let oldest):
            var failure = APIError(
                HTTPStatus(code: 410, reason: "Gone"), code: "history_compacted",
                message: "seq \(seq ?? 0) was compacted into a snapshot and can no longer be rebuilt; the oldest seq available is \(oldest)",
                field: "seq")
            failure.details = ["oldest": .int(Int(clamping: oldest))]
            return failure
        case .beyondLast(let lastSeq):
            var failure = APIError(
                .notFound, code: "record_not_found", message: "seq \(seq ?? 0) is after the last record in the log (\(lastSeq))", field: "seq")
            failure.details = ["lastSeq": .int(Int(clamping: lastSeq))]
            return failure
        case .notUsersRecord:
            return APIError(.notFound, code: "record_not_found", message: "seq \(seq ?? 0) is not a record of user '\(user)'", field: "seq")
        case .unreadable(let failure):
            return APIError(
                .internalServerError, code: "history_unreadable", message: "the retained log could not be read: \(failure)", retryable: true)
        }
    }
}

/// History reads, one at a time, off the event loops.
private let historyQueue = DispatchQueue(label: "specd.history")
