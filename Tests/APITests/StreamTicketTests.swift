import Engine
import Rules
import Testing

@testable import API

/// Signing and verifying one ticket, with no table: what any replica can check with the shared key alone.
@Suite struct StreamTicketTests {
    static let key = StreamTickets.key(secrets: [Array("reader-secret-0123456789".utf8), Array("admin-secret-0123456789ab".utf8)])
    static let expires = Instant(milliseconds: 1_773_144_030_000)

    @Test(arguments: [StreamTarget.global, .user("u1"), .user("caf\u{E9}"), .openFeature("u1"), .openFeature(""), .user("a/b?c")])
    func signed_verifiesUnderTheSameKey_intoTheSameTicket(target: StreamTarget) throws {
        let ticket = StreamTicket(target: target, expires: Self.expires)
        let text = ticket.signed(key: Self.key)
        #expect(text.utf8.allSatisfy { Base64URL.alphabet.contains($0) })
        #expect(StreamTicket(verifying: text, key: Self.key) == ticket)
    }

    /// Any one bit changed anywhere, in the payload (target, scope, expiry, nonce, user) or in the tag, and the
    /// ticket is not genuine.
    @Test func verify_anyBitFlipped_isRefused() throws {
        let text = StreamTicket(target: .user("u1"), expires: Self.expires).signed(key: Self.key)
        let bytes = try #require(Base64URL.decode(text))
        for index in bytes.indices {
            for bit in 0..<8 {
                var tampered = bytes
                tampered[index] ^= 1 << UInt8(bit)
                #expect(StreamTicket(verifying: Base64URL.encode(tampered), key: Self.key) == nil, "byte \(index) bit \(bit)")
            }
        }
    }

    /// Rewriting the payload to another user, or a later expiry, without the key: the old tag does not fit.
    @Test func verify_payloadRewrittenWithTheOldTag_isRefused() throws {
        let ticket = StreamTicket(target: .user("u1"), expires: Self.expires)
        let tag = try #require(Base64URL.decode(ticket.signed(key: Self.key))).suffix(StreamTicket.tagByteCount)
        for forged in [
            StreamTicket(target: .user("u2"), expires: ticket.expires, nonce: ticket.nonce),
            StreamTicket(target: .global, expires: ticket.expires, nonce: ticket.nonce),
            StreamTicket(target: .user("u1"), expires: ticket.expires + 3_600_000, nonce: ticket.nonce)
        ] {
            #expect(StreamTicket(verifying: Base64URL.encode(forged.payload + tag), key: Self.key) == nil, "\(forged.target)")
        }
    }

    @Test func verify_underAnotherKey_isRefused() {
        let text = StreamTicket(target: .global, expires: Self.expires).signed(key: Self.key)
        #expect(StreamTicket(verifying: text, key: StreamTickets.key(secrets: [Array("reader-secret-0123456789".utf8)])) == nil)
        #expect(StreamTicket(verifying: text, key: StreamTickets.key(secrets: [])) == nil)
    }

    /// A payload the key signed but this version never writes (a global ticket naming a user, an unknown kind or
    /// version, a scope its stream does not need) is refused too.
    @Test(arguments: [(1, UInt8(7)), (1, 0), (0, 2), (2, 2)])
    func verify_signedPayloadThisVersionNeverWrites_isRefused(index: Int, value: UInt8) {
        var payload = StreamTicket(target: .user("u1"), expires: Self.expires).payload
        payload[index] = value
        let text = Base64URL.encode(payload + HMAC.sha256(key: Self.key, message: payload))
        #expect(StreamTicket(verifying: text, key: Self.key) == nil)
    }

    /// Every replica configured with the same tokens, in whatever order, derives one key; other tokens another.
    @Test func key_dependsOnTheSecretsNotTheirOrder() {
        let a = Array("secret-a".utf8)
        let b = Array("secret-b".utf8)
        #expect(StreamTickets.key(secrets: [a, b]) == StreamTickets.key(secrets: [b, a]))
        #expect(StreamTickets.key(secrets: [a, b]) != StreamTickets.key(secrets: [a]))
        #expect(StreamTickets.key(secrets: [Array("ab".utf8), Array("c".utf8)]) != StreamTickets.key(secrets: [Array("a".utf8), Array("bc".utf8)]))
        #expect(StreamTickets.key(secrets: []).count == 32)
    }

    /// Two replicas sharing the tokens: a ticket one issues, the other accepts once; each remembers its own
    /// redemptions, and in a cluster a ticket is presented to one replica only.
    @Test func ticketIssuedByOneTable_isRedeemedByAnotherWithTheSameKey_once() {
        let clock = ManualClock(Self.expires - StreamTickets.lifetime)
        let issuer = StreamTickets(clock: clock, key: Self.key)
        let owner = StreamTickets(clock: clock, key: Self.key)
        let stranger = StreamTickets(clock: clock, key: StreamTickets.key(secrets: []))
        let issued = issuer.issue(for: .user("u1"))
        #expect(stranger.redeem(issued.ticket, for: .user("u1")) == .refused)
        #expect(owner.redeem(issued.ticket, for: .user("u1")) == .accepted)
        #expect(owner.redeem(issued.ticket, for: .user("u1")) == .refused)
        let expired = issuer.issue(for: .global, lifetime: StreamTickets.memberLifetime)
        clock.advance(StreamTickets.memberLifetime)
        #expect(owner.redeem(expired.ticket, for: .global) == .refused)
    }
}

/// RFC 4648 §10's vectors in the URL-safe alphabet, without padding.
@Suite struct Base64URLTests {
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func encode_rfc4648Vectors(text: String, encoded: String) {
        #expect(Base64URL.encode(Array(text.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(text.utf8))
    }

    @Test func urlSafeAlphabet_roundTripsEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
        #expect(Base64URL.decode(text) == bytes)
    }

    /// Padding, the standard alphabet's `+` `/`, a length no encoding has, leftover bits set: each byte string has
    /// one text only.
    @Test(arguments: ["Zg==", "Zm+v", "Zm/v", "Z", "Zh", "Zm9", "é"])
    func decode_textNoEncodingWrites_isNil(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
