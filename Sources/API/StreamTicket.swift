import Engine
import Rules

/// A signed stream ticket (docs/api.md, "Stream tickets"): what it opens, until when, and a random nonce, signed
/// with HMAC-SHA256 (RFC 2104) under a key every replica shares, so any replica can check a ticket another issued.
///
/// Wire form: base64url without padding (RFC 4648 §5) of `payload ‖ tag`, the tag the last 32 bytes. The payload is
/// a version byte, the target's kind (0 global, 1 user, 2 OpenFeature, 3 global for one member), the scope it needs, the expiry (milliseconds since the epoch, 8 bytes big
/// endian), a 16-byte nonce, then the user id's bytes (empty for the global stream). Nothing in it is secret: the
/// user id sits in the stream's URL anyway; the tag is what cannot be forged.
struct StreamTicket: Equatable, Sendable {
    var target: StreamTarget
    var expires: Instant
    var nonce: [UInt8]
    /// Made by a replica merging the cluster's global stream for one member's own stream, never given to a client:
    /// redeemed by the member it is sent to, where a client's global ticket is redeemed by one member only
    /// (`ClusterRouter`).
    var isForMember = false

    static let version: UInt8 = 1
    static let nonceByteCount = 16
    static let tagByteCount = 32
    /// version, kind, scope, expiry, nonce.
    static let fixedByteCount = 3 + 8 + nonceByteCount
    /// Far above any valid id's length: a longer text is refused before anything is decoded or hashed.
    static let maximumTextLength = 2_048

    /// A ticket with a fresh nonce from `SystemRandomNumberGenerator` (the kernel's `getrandom(2)` on Linux).
    init(target: StreamTarget, expires: Instant, isForMember: Bool = false) {
        var generator = SystemRandomNumberGenerator()
        var nonce: [UInt8] = []
        for _ in 0..<(Self.nonceByteCount / 8) { withUnsafeBytes(of: generator.next() as UInt64) { nonce.append(contentsOf: $0) } }
        self.init(target: target, expires: expires, nonce: nonce, isForMember: isForMember)
    }

    init(target: StreamTarget, expires: Instant, nonce: [UInt8], isForMember: Bool = false) {
        self.target = target
        self.expires = expires
        self.nonce = nonce
        self.isForMember = isForMember && target == .global
    }

    var payload: [UInt8] {
        var bytes: [UInt8] = [Self.version]
        switch target {
        case .global: bytes += [isForMember ? 3 : 0, Self.code(of: target.scope)]
        case .user: bytes += [1, Self.code(of: target.scope)]
        case .openFeature: bytes += [2, Self.code(of: target.scope)]
        }
        withUnsafeBytes(of: UInt64(bitPattern: expires.milliseconds).bigEndian) { bytes.append(contentsOf: $0) }
        bytes += nonce
        switch target {
        case .global: break
        case .user(let user), .openFeature(let user): bytes += Array(user.string.utf8)
        }
        return bytes
    }

    /// The ticket's text under `key`.
    func signed(key: [UInt8]) -> String {
        let payload = payload
        return Base64URL.encode(payload + HMAC.sha256(key: key, message: payload))
    }

    /// The ticket `text` carries if its tag is right under `key` (compared in constant time) and its payload is one
    /// this version writes; `nil` for anything else. Expiry and target are the caller's to check.
    init?(verifying text: String, key: [UInt8]) {
        guard text.utf8.count <= Self.maximumTextLength, let bytes = Base64URL.decode(text),
            bytes.count >= Self.fixedByteCount + Self.tagByteCount
        else { return nil }
        let payload = Array(bytes[..<(bytes.count - Self.tagByteCount)])
        let tag = Array(bytes[(bytes.count - Self.tagByteCount)...])
        guard Authenticator.constantTimeEquals(HMAC.sha256(key: key, message: payload), tag) else { return nil }
        guard payload[0] == Self.version else { return nil }
        let expiry = payload[3..<11].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let nonce = Array(payload[11..<Self.fixedByteCount])
        let userBytes = Array(payload[Self.fixedByteCount...])
        let text = String(decoding: userBytes, as: UTF8.self)
        // Only a signed payload gets here, and this version writes ids as valid UTF-8: anything else is refused.
        guard text.utf8.elementsEqual(userBytes) else { return nil }
        let user = ByteKey(text)
        let target: StreamTarget
        switch payload[1] {
        case 0 where userBytes.isEmpty, 3 where userBytes.isEmpty: target = .global
        case 1: target = .user(user)
        case 2: target = .openFeature(user)
        default: return nil
        }
        // The scope is signed too: a ticket only ever carries the scope its stream needs.
        guard payload[2] == Self.code(of: target.scope) else { return nil }
        self.init(target: target, expires: Instant(milliseconds: Int64(bitPattern: expiry)), nonce: nonce, isForMember: payload[1] == 3)
    }

    private static func code(of scope: Scope) -> UInt8 {
        switch scope {
        case .evaluate: 0
        case .write: 1
        case .admin: 2
        }
    }
}
