import Engine
import HTTP
import HTTPServer

/// Checks `Authorization: Bearer` or `X-API-Key` against the configured tokens, in constant time per token so the
/// response time says nothing about how much of a secret matched. With no tokens configured every request passes
/// (the daemon then listens on loopback only).
public struct Authenticator: Sendable {
    public let tokens: [Token]

    public init(tokens: [Token]) {
        self.tokens = tokens
    }

    public var isEnabled: Bool { !tokens.isEmpty }

    public func check(_ request: Request, scope: Scope?) -> APIError? {
        guard isEnabled, let scope else { return nil }
        guard let presented = Self.presentedSecret(request.headers) else {
            return APIError(
                .unauthorized, code: "unauthorized", message: "a token is required: Authorization: Bearer <token> or X-API-Key",
                headers: ["WWW-Authenticate": "Bearer"])
        }
        var matched: Token?
        for token in tokens where Self.constantTimeEquals(token.secret, presented) { matched = token }
        guard let token = matched else {
            return APIError(
                .unauthorized, code: "unauthorized", message: "the token is not valid",
                headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""])
        }
        guard token.scopes.contains(scope) else {
            return APIError(.forbidden, code: "forbidden", message: "token '\(token.name)' lacks the '\(scope.rawValue)' scope")
        }
        return nil
    }

    static func presentedSecret(_ headers: HTTPHeaders) -> [UInt8]? {
        if let authorization = headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return Array(parts[1].utf8) }
        }
        if let key = headers[.apiKey], !key.isEmpty { return Array(key.utf8) }
        return nil
    }

    /// Compares every byte of the longer input whatever differs first.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        let length = max(a.count, b.count)
        for index in 0..<length {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
