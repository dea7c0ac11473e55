/// A configured bearer token. The secret is never logged.
public struct Token: Sendable, Equatable {
    public let name: String
    let secret: [UInt8]

    /// Whether two tokens share a secret (compared in constant time; the secret is never shown).
    public func hasSameSecret(as other: Token) -> Bool { Authenticator.constantTimeEquals(secret, other.secret) }
    public let scopes: Set<Scope>

    public init(name: String, secret: String, scopes: Set<Scope>) {
        self.name = name
        self.secret = Array(secret.utf8)
        self.scopes = scopes
    }
}
