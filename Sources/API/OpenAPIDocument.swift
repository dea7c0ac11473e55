import Engine
import Foundation
import HTTPServer
import Rules

/// The OpenAPI 3.1 description of every route, built from one table so a route cannot be served undocumented
/// (a test compares this table with the router's).
enum OpenAPIDocument {
    struct Operation {
        let method: String
        let path: String
        let summary: String
        let scope: Scope?
        let request: JSONValue?
        let success: (status: Int, schema: JSONValue?)
        let errors: [Int]
        /// Query parameters: name → schema.
        var query: [(name: String, schema: JSONValue, description: String)] = []
        /// The success answer's media type when it is not JSON (the dashboard's page, script and style).
        var contentType: String?
    }

    /// `?ticket=` on a stream route: a one-time ticket from `POST /v1/stream-tickets` in place of a token.
    static let ticketQuery = (
        name: "ticket", schema: ["type": "string"] as JSONValue,
        description: "A one-time ticket from POST /v1/stream-tickets, in place of a token (EventSource cannot send headers)"
    )

    /// `?at=ISO` on a stored user's flags: what-if at another instant.
    static let atQuery = (
        name: "at", schema: ["type": "string", "format": "date-time"] as JSONValue,
        description: "Evaluate the stored context at this instant instead of now (what-if; stores nothing)"
    )

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
    static let string: JSONValue = ["type": "string"]
    static let integer: JSONValue = ["type": "integer"]
    static let boolean: JSONValue = ["type": "boolean"]
    static func object(_ properties: JSONObject, required: [String] = [], additional: JSONValue? = nil) -> JSONValue {
        var schema: JSONObject = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        if let additional { schema["additionalProperties"] = additional }
        return .object(schema)
    }
    static func map(_ values: JSONValue) -> JSONValue { ["type": "object", "additionalProperties": values] }
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static func nullable(_ schema: JSONValue) -> JSONValue { ["oneOf": [schema, ["type": "null"]]] }

    static let writeErrors = [400, 401, 403, 404, 413, 415, 422, 429, 503, 507]
    static let readErrors = [400, 401, 403, 404, 429]

    static let operations: [Operation] = [
        Operation(method: "GET", path: "/healthz", summary: "Liveness", scope: nil, request: nil, success: (200, ref("Health")), errors: []),
        Operation(
            method: "GET", path: "/readyz", summary: "Readiness: 503 while recovering, draining or after a storage failure", scope: nil, request: nil,
            success: (200, ref("Health")), errors: [503]),
        Operation(
            method: "GET", path: "/metrics", summary: "Prometheus metrics", scope: .admin, request: nil, success: (200, nil), errors: [401, 403]),
        Operation(
            method: "GET", path: "/openapi.json", summary: "This document", scope: nil, request: nil, success: (200, ["type": "object"]), errors: []),
        Operation(
            method: "GET", path: "/v1/admin/status", summary: "Rules, store and server state", scope: .admin, request: nil,
            success: (200, ref("Status")), errors: [401, 403]),
        Operation(
            method: "POST", path: "/v1/admin/reload", summary: "Reload rules: validated whole, then swapped", scope: .admin, request: nil,
            success: (200, ref("Reload")), errors: [401, 403, 409, 422, 429]),
        Operation(
            method: "POST", path: "/v1/users/{user}/events/{event}", summary: "Donate an event", scope: .write, request: ref("DonationRequest"),
            success: (200, ref("DonationResponse")), errors: writeErrors),
        Operation(
            method: "GET", path: "/v1/users/{user}/events/{event}", summary: "Donation summary", scope: .evaluate, request: nil,
            success: (200, ref("SummaryResponse")), errors: readErrors),
        Operation(
            method: "DELETE", path: "/v1/users/{user}/events/{event}", summary: "Reset an event's donations", scope: .write, request: nil,
            success: (200, ref("WriteResponse")), errors: writeErrors),
        Operation(
            method: "PATCH", path: "/v1/users/{user}/context", summary: "Apply a batch of context operations atomically", scope: .write,
            request: ref("OpsRequest"), success: (200, ref("WriteResponse")), errors: writeErrors),
        Operation(
            method: "GET", path: "/v1/users/{user}", summary: "A user's whole context", scope: .evaluate, request: nil,
            success: (200, ref("Context")), errors: readErrors),
        Operation(
            method: "DELETE", path: "/v1/users/{user}", summary: "Erase a user", scope: .admin, request: nil, success: (200, ref("WriteResponse")),
            errors: writeErrors),
        Operation(
            method: "POST", path: "/v1/users/{user}/flags/{key}/display",
            summary: "Report a display event (shown, dismissed, actionPerformed) for a display flag", scope: .write,
            request: ref("DisplayRequest"), success: (200, ref("DisplayResponse")), errors: writeErrors),
        Operation(
            method: "GET", path: "/v1/users/{user}/flags", summary: "Every flag for a user (ETag, If-None-Match)", scope: .evaluate, request: nil,
            success: (200, ref("FlagsResponse")), errors: [304, 400, 401, 403], query: [atQuery]),
        Operation(
            method: "GET", path: "/v1/users/{user}/flags/{key}", summary: "One flag; ?explain=1 adds the evaluation tree", scope: .evaluate,
            request: nil, success: (200, ref("FlagEvaluation")), errors: [304] + readErrors,
            query: [atQuery, (name: "explain", schema: ["type": "string", "enum": ["1", "true"]], description: "Add the evaluation tree")]),
        Operation(
            method: "POST", path: "/v1/evaluate",
            summary: "Evaluate an inline context (over the stored context of `user`, when given); stores nothing", scope: .evaluate,
            request: ref("EvaluateRequest"), success: (200, ref("EvaluateResponse")), errors: [400, 401, 403, 413, 415]),
        Operation(
            method: "GET", path: "/v1/users/{user}/stream", summary: "Server-sent events for one user: flag, trigger, rules, reset", scope: .evaluate,
            request: nil, success: (200, nil), errors: [400, 401, 403, 503], query: [ticketQuery]),
        Operation(
            method: "GET", path: "/v1/stream", summary: "Server-sent events for every user", scope: .admin, request: nil, success: (200, nil),
            errors: [400, 401, 403, 503], query: [ticketQuery]),
        Operation(
            method: "POST", path: "/ofrep/v1/evaluate/flags/{key}", summary: "OpenFeature remote evaluation of one flag", scope: .evaluate,
            request: ["type": "object"], success: (200, ref("OFREPEvaluation")), errors: [304, 400, 401, 403, 404]),
        Operation(
            method: "POST", path: "/ofrep/v1/evaluate/flags", summary: "OpenFeature bulk evaluation (ETag, If-None-Match)", scope: .evaluate,
            request: ["type": "object"], success: (200, ["type": "object"]), errors: [304, 400, 401, 403]),
        Operation(
            method: "POST", path: "/ofrep/v1/evaluate/flags/", summary: "OpenFeature bulk evaluation (trailing-slash form)", scope: .evaluate,
            request: ["type": "object"], success: (200, ["type": "object"]), errors: [304, 400, 401, 403]),
        Operation(
            method: "GET", path: "/ofrep/v1/events", summary: "OpenFeature event stream: refetchEvaluation notifications", scope: .evaluate,
            request: nil, success: (200, nil), errors: [400, 401, 403, 503], query: [ticketQuery]),
        Operation(
            method: "OPTIONS", path: "/ofrep/v1/evaluate/flags/{key}", summary: "CORS preflight", scope: nil, request: nil, success: (204, nil),
            errors: []),
        Operation(
            method: "OPTIONS", path: "/ofrep/v1/evaluate/flags", summary: "CORS preflight", scope: nil, request: nil, success: (204, nil), errors: []),
        Operation(
            method: "OPTIONS", path: "/ofrep/v1/evaluate/flags/", summary: "CORS preflight", scope: nil, request: nil, success: (204, nil), errors: []
        ),
        Operation(method: "OPTIONS", path: "/ofrep/v1/events", summary: "CORS preflight", scope: nil, request: nil, success: (204, nil), errors: []),
        Operation(
            method: "GET", path: "/v1/rules", summary: "The loaded rule set (ETag = version)", scope: .admin, request: nil,
            success: (200, ref("Rules")), errors: [304, 401, 403]),
        Operation(
            method: "GET", path: "/v1/rules/{key}", summary: "One flag, trigger or spec definition", scope: .admin, request: nil,
            success: (200, ref("RuleDefinition")), errors: [401, 403, 404]),
        Operation(
            method: "POST", path: "/v1/rules/validate", summary: "Diagnostics for a posted rule set; loads nothing", scope: .admin,
            request: ["type": "object"], success: (200, ref("ValidateResponse")), errors: [400, 401, 403, 413, 415]),
        Operation(
            method: "POST", path: "/v1/stream-tickets",
            summary: "A one-time ticket (30 s) that opens one stream as ?ticket=; needs that stream's scope (admin for /v1/stream)",
            scope: .evaluate, request: ref("StreamTicketRequest"), success: (200, ref("StreamTicket")), errors: [400, 401, 403, 413, 415, 503]),
        Operation(
            method: "GET", path: "/ui", summary: "The dashboard page (no token: it holds no secret)", scope: nil, request: nil,
            success: (200, nil), errors: [304], contentType: "text/html"),
        Operation(
            method: "GET", path: "/ui/app.js", summary: "The dashboard's script", scope: nil, request: nil, success: (200, nil), errors: [304],
            contentType: "text/javascript"),
        Operation(
            method: "GET", path: "/ui/app.css", summary: "The dashboard's style", scope: nil, request: nil, success: (200, nil), errors: [304],
            contentType: "text/css"),
        Operation(
            method: "POST", path: "/ofrep/v1/track",
            summary: "specd extension to OFREP: an OpenFeature track() call, donated as the event for the targetingKey", scope: .write,
            request: ref("TrackRequest"), success: (202, ref("TrackResponse")), errors: [400, 401, 403, 413, 415, 422, 503, 507]),
        Operation(method: "OPTIONS", path: "/ofrep/v1/track", summary: "CORS preflight", scope: nil, request: nil, success: (204, nil), errors: []),
        Operation(
            method: "GET", path: "/v1/users/{user}/history",
            summary: "The user's log records, newest first, paged by seq (changed flags recomputed with the current rules)",
            scope: .evaluate, request: nil, success: (200, ref("HistoryResponse")), errors: [400, 401, 403, 404, 500],
            query: [
                (name: "limit", schema: ["type": "integer", "minimum": 1, "maximum": 500], description: "Records per page (default 50)"),
                (
                    name: "before", schema: ["type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999],
                    description: "Only records with a smaller seq: the previous answer's `before`"
                )
            ]),
        Operation(
            method: "GET", path: "/v1/users/{user}/history/{seq}/explain/{key}",
            summary: "Why then: the flag explained as it stood just after the user's record `seq` (current rules)", scope: .evaluate,
            request: nil, success: (200, ref("HistoryExplain")), errors: [400, 401, 403, 404, 410, 500]),
        Operation(
            method: "GET", path: "/v1/admin/operations", summary: "Reloads, snapshots, compactions, recovery and pending delayed fires",
            scope: .admin, request: nil, success: (200, ref("OperationsResponse")), errors: [401, 403]),
        Operation(
            method: "DELETE", path: "/v1/admin/operations/{id}", summary: "Cancel a pending delayed fire (logged)", scope: .admin, request: nil,
            success: (200, ref("CancelledOperation")), errors: [401, 403, 404, 409, 503])
    ]

    static let schemas: JSONObject = [
        "Error": object(
            [
                "error": object(
                    ["code": string, "message": string, "field": string, "retryable": boolean, "details": [:]],
                    required: ["code", "message", "retryable"])
            ], required: ["error"]),
        "Health": object(["status": string], required: ["status"]),
        "Mark": object(["at": string, "appVersion": nullable(string)], required: ["at"]),
        "DonationSummary": object(
            ["count": integer, "first": nullable(ref("Mark")), "last": nullable(ref("Mark")), "recent": array(string)],
            required: ["count"]),
        "DonationRequest": object(
            [
                "at": ["type": "string", "format": "date-time"], "appVersion": ["type": "string", "pattern": "^[0-9]{1,9}(\\.[0-9]{1,9})*$"],
                "payload": ["type": "object"]
            ], additional: false),
        "Change": object(["key": string, "value": [:], "previous": [:]], required: ["key", "value", "previous"]),
        "Fire": object(["trigger": string, "at": string], required: ["trigger", "at"]),
        "DonationResponse": object(
            ["seq": integer, "event": ref("DonationSummary"), "changed": array(ref("Change")), "fired": array(ref("Fire"))],
            required: ["seq", "event", "changed", "fired"]),
        "SummaryResponse": object(["user": string, "event": string, "summary": ref("DonationSummary")], required: ["user", "event", "summary"]),
        "WriteResponse": object(["seq": integer, "changed": array(ref("Change"))], required: ["seq"]),
        "Operation": object(
            ["op": ["type": "string", "enum": .array(OperationDecoder.fields.keys.sorted().map(JSONValue.string))]], required: ["op"]),
        "OpsRequest": object(
            ["ops": ["type": "array", "items": ref("Operation"), "minItems": 1, "maxItems": 1000]], required: ["ops"], additional: false),
        "Context": object([
            "user": string, "launchedAt": string, "tz": string, "counters": map(integer), "events": map(string),
            "flags": map(boolean), "attributes": ["type": "object"], "segments": array(string),
            "donations": map(ref("DonationSummary")), "triggers": map(string),
            "expires": object(["attributes": map(string), "flags": map(string), "segments": map(string)], additional: false),
            "display": map(ref("DisplayState"))
        ]),
        "DisplayState": object(
            [
                "shownCount": integer, "firstShown": nullable(string), "lastShown": nullable(string),
                "invalidated": nullable(
                    object(
                        ["reason": ["type": "string", "enum": ["actionPerformed", "dismissed", "displayCountExceeded"]], "at": string],
                        required: ["reason", "at"]))
            ], required: ["shownCount"]),
        "DisplayRequest": object(
            [
                "event": ["type": "string", "enum": ["shown", "dismissed", "actionPerformed"]], "at": ["type": "string", "format": "date-time"],
                "appVersion": ["type": "string", "pattern": "^[0-9]{1,9}(\\.[0-9]{1,9})*$"]
            ], required: ["event"], additional: false),
        "DisplayResponse": object(
            ["seq": integer, "flag": ref("FlagEvaluation"), "display": ref("DisplayState"), "changed": array(ref("Change"))],
            required: ["seq", "flag", "display", "changed"]),
        "Evaluation": object(
            [
                "value": [:], "variant": string,
                "reason": ["type": "string", "enum": ["STATIC", "TARGETING_MATCH", "DEFAULT", "DISABLED", "SPLIT", "ERROR", "INVALIDATED"]],
                "index": integer, "matched": boolean, "errorCode": string, "errorMessage": string, "explain": [:],
                "validUntil": ["type": "string", "format": "date-time"]
            ],
            required: ["value", "reason", "matched"]),
        "FlagEvaluation": [
            "allOf": [ref("Evaluation"), object(["key": string, "metadata": ["type": "object"], "explain": ["type": "object"]], required: ["key"])]
        ],
        "FlagsResponse": object(["flags": map(ref("Evaluation"))], required: ["flags"]),
        "EvaluateRequest": object(
            [
                "context": ref("Context"), "flags": array(string), "at": ["type": "string", "format": "date-time"],
                "appVersion": string,
                "user": [
                    "type": "string",
                    "description": "A stored user whose context lies under the inline one (the request wins, key by key)"
                ]
            ], additional: false),
        "EvaluateResponse": object(["flags": map(ref("Evaluation")), "at": string], required: ["flags", "at"]),
        "Rules": object(
            ["version": string, "specs": ["type": "object"], "flags": ["type": "object"], "triggers": ["type": "object"]], required: ["version"]),
        "RuleDefinition": object(
            ["key": string, "kind": ["type": "string", "enum": ["flag", "trigger", "spec"]], "version": string, "definition": [:]],
            required: ["key", "kind", "version", "definition"]),
        "Diagnostic": object(
            ["severity": string, "path": string, "code": string, "message": string, "file": string],
            required: ["severity", "path", "code", "message"]),
        "ValidateResponse": object(["valid": boolean, "diagnostics": array(ref("Diagnostic"))], required: ["valid", "diagnostics"]),
        "OFREPEvaluation": object(
            [
                "key": string, "reason": string, "variant": nullable(string), "value": [:], "metadata": ["type": "object"],
                "errorCode": string, "errorDetails": string
            ], required: ["key"]),
        "OFREPError": object(
            [
                "key": string,
                "errorCode": ["type": "string", "enum": ["PARSE_ERROR", "TARGETING_KEY_MISSING", "INVALID_CONTEXT", "GENERAL", "FLAG_NOT_FOUND"]],
                "errorDetails": string, "metadata": ["type": "object"]
            ], required: ["errorCode"]),
        "Reload": object(["phase": string, "version": string], required: ["phase", "version"]),
        "StreamTicketRequest": object(
            ["stream": ["type": "string", "description": "/v1/users/{user}/stream, /v1/stream or /ofrep/v1/events?targetingKey={user}"]],
            required: ["stream"], additional: false),
        "StreamTicket": object(
            ["ticket": string, "expiresAt": ["type": "string", "format": "date-time"], "stream": string],
            required: ["ticket", "expiresAt", "stream"]),
        "Status": object(
            ["version": string, "rules": ["type": "object"], "store": ["type": "object"], "server": ["type": "object"]],
            required: ["version", "rules", "store", "server"]),
        "TrackRequest": object(
            [
                "context": object(["targetingKey": ["type": "string", "minLength": 1, "maxLength": 256]], required: ["targetingKey"]),
                "trackingEventName": ["type": "string", "minLength": 1],
                "trackingEventDetails": object(["value": ["type": "number"]])
            ], required: ["context", "trackingEventName"]),
        "TrackResponse": object(["seq": integer], required: ["seq"]),
        "HistoryRecord": object(
            [
                "seq": integer, "at": string, "action": object(["ops": array(object(["op": string], required: ["op"]))], required: ["ops"]),
                "changed": array(ref("Change")), "fired": array(ref("Fire"))
            ], required: ["seq", "at", "action", "changed", "fired"]),
        "HistoryResponse": object(
            [
                "user": string, "records": array(ref("HistoryRecord")), "before": nullable(integer), "oldest": integer, "lastSeq": integer,
                "compacted": boolean, "rules": ["type": "string", "enum": ["current"]]
            ], required: ["user", "records", "before", "oldest", "lastSeq", "compacted", "rules"]),
        "HistoryExplain": [
            "allOf": [
                ref("Evaluation"),
                object(
                    [
                        "user": string, "seq": integer, "at": string, "key": string, "explain": ["type": "object"],
                        "rules": ["type": "string", "enum": ["current"]], "rulesVersion": string,
                        "rebuiltFrom": object(["snapshotSeq": integer, "replayedRecords": integer], required: ["snapshotSeq", "replayedRecords"]),
                        "now": ref("Evaluation")
                    ], required: ["user", "seq", "at", "key", "explain", "rules", "rebuiltFrom", "now"])
            ]
        ],
        "TrackedOperation": object(
            [
                "id": string, "kind": string, "state": ["type": "string", "enum": ["idle", "loading", "loaded", "failed"]], "startedAt": string,
                "finishedAt": string, "error": string, "detail": ["type": "object"]
            ], required: ["id", "kind", "state", "startedAt", "detail"]),
        "OperationsResponse": object(["operations": array(ref("TrackedOperation"))], required: ["operations"]),
        "CancelledOperation": object(["operation": ref("TrackedOperation"), "seq": integer], required: ["operation", "seq"])
    ]

    static let document: JSONValue = {
        var paths = JSONObject()
        for operation in operations {
            var entry: JSONObject = [
                "summary": .string(operation.summary),
                "operationId": .string(
                    operation.method.lowercased()
                        + operation.path.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "{", with: "").replacingOccurrences(
                            of: "}", with: ""))
            ]
            let parameters = operation.path.split(separator: "/").filter { $0.hasPrefix("{") }.map { name -> JSONValue in
                [
                    "name": .string(String(name.dropFirst().dropLast())), "in": "path", "required": true,
                    "schema": ["type": "string", "minLength": 1, "maxLength": 256]
                ]
            }
            let queries = operation.query.map { query -> JSONValue in
                ["name": .string(query.name), "in": "query", "required": false, "schema": query.schema, "description": .string(query.description)]
            }
            if !(parameters + queries).isEmpty { entry["parameters"] = .array(parameters + queries) }
            if let request = operation.request {
                entry["requestBody"] = [
                    "required": .bool(operation.path != "/v1/users/{user}/events/{event}"),
                    "content": ["application/json": ["schema": request]]
                ]
            }
            var responses = JSONObject()
            let content: JSONValue? =
                operation.contentType.map { [$0: ["schema": string]] } ?? operation.success.schema.map { ["application/json": ["schema": $0]] }
                ?? (operation.path == "/metrics" ? ["text/plain": ["schema": string]] : ["text/event-stream": ["schema": string]])
            var success: JSONObject = ["description": "OK"]
            if let content, operation.success.status != 204 { success["content"] = content }
            responses[String(operation.success.status)] = .object(success)
            // Every scoped route is rate limited.
            let errors = operation.scope != nil && !operation.errors.contains(429) ? operation.errors + [429] : operation.errors
            for status in errors {
                if status == 304 {
                    responses["304"] = ["description": "Not modified (If-None-Match matched)"]
                } else {
                    // OFREP answers its own error shape for evaluation failures (docs/api.md, "OFREP errors"); auth and
                    // limits use ours.
                    // The track extension is a write and answers ours.
                    let ofrep = operation.path.hasPrefix("/ofrep/") && operation.path != "/ofrep/v1/track" && (status == 400 || status == 404)
                    responses[String(status)] = [
                        "description": "Error", "content": ["application/json": ["schema": ref(ofrep ? "OFREPError" : "Error")]]
                    ]
                }
            }
            entry["responses"] = .object(responses)
            if let scope = operation.scope {
                entry["security"] = [["bearer": .array([.string(scope.rawValue)])], ["apiKey": .array([.string(scope.rawValue)])]]
            }
            var pathItem = paths[operation.path]?.objectValue ?? [:]
            pathItem[operation.method.lowercased()] = .object(entry)
            paths[operation.path] = .object(pathItem)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "specd", "version": .string(Release.version),
                "description": "Rule evaluation daemon: donations, contexts, flags and decisions."
            ],
            "paths": .object(paths),
            "components": [
                "schemas": .object(schemas),
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer"],
                    "apiKey": ["type": "apiKey", "in": "header", "name": "X-API-Key"]
                ]
            ]
        ]
    }()

    static let json: [UInt8] = JSONWriter.write(document)
}
