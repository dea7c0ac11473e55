import Engine
import Foundation
import HTTP
import HTTPServer
import Rules

/// `GET /v1/rules`, `GET /v1/rules/{key}`, `POST /v1/rules/validate` (docs/api.md, "Rules and
/// administration").
struct RulesRoutes: Sendable {
    let rules: RulesHost

    func register(in router: inout Router) {
        router.add("GET", "/v1/rules", scope: .admin, sync: { request throws(APIError) in try list(request) })
        router.add("GET", "/v1/rules/{key}", scope: .admin, sync: { request throws(APIError) in try definition(request) })
        router.add("POST", "/v1/rules/validate", scope: .admin, sync: { request throws(APIError) in try validate(request) })
    }

    private func list(_ request: Request) throws(APIError) -> HTTPResponse {
        let current = rules.current
        var body: JSONObject = ["version": .string(current.version)]
        if case .object(let source) = current.source {
            for section in ["specs", "flags", "triggers"] { body[section] = source[section] ?? [:] }
        }
        // The rule set's version is already a hash of its source: the tag of every answer built from it.
        return ETag.respond(request, body: JSONWriter.write(.object(body)), etag: ETag.strong(current.version))
    }

    private func definition(_ request: Request) throws(APIError) -> HTTPResponse {
        let key = request.parameter("key")
        let current = rules.current
        let kind: String
        let source: JSONValue
        if let flag = current.flags[key] {
            (kind, source) = ("flag", flag.source)
        } else if let trigger = current.triggers[key] {
            (kind, source) = ("trigger", trigger.source)
        } else if let spec = current.source["specs"]?[key] {
            (kind, source) = ("spec", spec)
        } else {
            throw APIError.notFound("no flag, trigger or spec named '\(key)'")
        }
        let body: JSONValue = ["key": .string(key), "kind": .string(kind), "version": .string(current.version), "definition": source]
        return .json(.ok, JSONWriter.write(body), headers: ["ETag": ETag.strong(current.version)])
    }

    private func validate(_ request: Request) throws(APIError) -> HTTPResponse {
        let document = try RequestBody.json(request)
        let diagnostics: [Diagnostic]
        let valid: Bool
        switch RuleSetCompiler.compile(document) {
        case .success(let set):
            (diagnostics, valid) = (set.warnings, true)
        case .failure(let error):
            (diagnostics, valid) = (error.diagnostics, false)
        }
        let body: JSONValue = ["valid": .bool(valid), "diagnostics": .array(diagnostics.map(\.json))]
        return .json(.ok, JSONWriter.write(body))
    }
}
