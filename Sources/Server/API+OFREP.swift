import HTTP
import Rules
import Store

/// The OpenFeature Remote Evaluation Protocol (DESIGN §9): any OpenFeature SDK can use specd as its provider.
extension API {
    func registerOFREP(in router: inout Router) {
        router.add("POST", "/ofrep/v1/evaluate/flags/{key}", scope: .evaluate, sync: { request throws(APIError) in ofrepSingle(request) })
    }

    /// The request's context: `targetingKey` is the user id; the stored user's context is merged under the
    /// request's attributes (the request wins). Only undecodable JSON is an error.
    func ofrepContext(_ request: Request) -> (user: String, context: UserContext)? {
        var attributes = JSONObject()
        if !request.body.isEmpty {
            guard let body = try? JSONParser().parse(request.body), case .object(let root) = body else { return nil }
            if let context = root["context"] {
                guard case .object(let object) = context else { return nil }
                attributes = object
            }
        }
        var user = ""
        if case .string(let key)? = attributes["targetingKey"] { user = key }
        attributes["targetingKey"] = nil
        var context = (Identifier.isValid(user) ? database.store.context(of: user) : nil) ?? UserContext()
        for (name, value) in attributes { context.attributes[name] = value }
        return (user, context)
    }

    func ofrepError(_ status: HTTPStatus, key: String, code: String, details: String) -> HTTPResponse {
        .json(status, JSONWriter.write(["key": .string(key), "errorCode": .string(code), "errorDetails": .string(details), "metadata": [:]]))
    }

    func ofrepSingle(_ request: Request) -> HTTPResponse {
        let key = request.parameter("key")
        guard let (user, context) = ofrepContext(request) else {
            return ofrepError(.badRequest, key: key, code: "INVALID_CONTEXT", details: "the body is not a JSON object with an object 'context'")
        }
        let ruleSet = rules.current
        guard let flag = ruleSet.flags[key] else {
            return ofrepError(.notFound, key: key, code: "FLAG_NOT_FOUND", details: "flag '\(key)' is not defined")
        }
        let evaluation = flag.evaluate(input(context, user: user, now: clock.now(), appVersion: request.headers["X-App-Version"]))
        metrics.increment("evaluations_total")
        if let code = evaluation.errorCode {
            return ofrepError(.badRequest, key: key, code: code.rawValue, details: evaluation.errorMessage ?? code.rawValue)
        }
        return .json(.ok, JSONWriter.write(ofrepSuccess(evaluation, flag: flag)))
    }

    /// `{key, reason, variant?, value?, metadata}`: no `value` when nothing was decided (disabled, no default).
    func ofrepSuccess(_ evaluation: Evaluation, flag: Flag) -> JSONValue {
        var body: JSONObject = ["key": .string(evaluation.key), "reason": .string(evaluation.reason.rawValue)]
        if let value = evaluation.value {
            if let variant = evaluation.variant { body["variant"] = .string(variant) }
            body["value"] = value
        }
        body["metadata"] = .object(flag.metadata)
        return .object(body)
    }
}
