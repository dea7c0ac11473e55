import Foundation
import Rules
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// Strings a hostile client controls that used to be unbounded or let through: app versions, C1 control
/// characters, the user of an inline evaluation. Each gets a 400 naming the field.
@Suite(.serialized) struct HostileIdentifiersTests {
    /// A version is stored with every donation (first and last mark): unbounded, one client could grow a user by
    /// a megabyte a request and keep it in the interner after an erase.
    @Test func donation_withAnAppVersionPastItsLimit_isRefusedNamingTheField() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let long = Array(repeating: "1", count: 40).joined(separator: ".") // 79 bytes, a valid dotted version
        let refused = try api.call("POST", "/v1/users/u1/events/e", json: #"{"appVersion": "\#(long)"}"#)
        #expect(refused.status == 400)
        #expect(refused.errorField == "appVersion")
        let header = try api.call("POST", "/v1/users/u1/events/e", headers: ["X-App-Version": long])
        #expect(header.status == 400)
        #expect(header.errorField == "X-App-Version")
        let atLimit = String(repeating: "1.", count: 32).dropLast() + "1" // 64 bytes
        #expect(atLimit.utf8.count == Version.maxBytes)
        #expect(try api.call("POST", "/v1/users/u1/events/e", json: #"{"appVersion": "\#(atLimit)"}"#).status == 200)
    }

    @Test(arguments: ["a\u{80}b", "x\u{9F}", "\u{85}"])
    func key_withAC1ControlCharacter_isRefused(key: String) throws {
        let api = try APIHarness()
        defer { api.stop() }
        let body = #"{"ops": [{"op": "increment", "counter": "\#(key)"}]}"#
        let refused = try api.call("PATCH", "/v1/users/u1/context", json: body)
        #expect(refused.status == 400)
        #expect(refused.errorField == "ops[0].counter")
    }

    @Test(arguments: [String(repeating: "u", count: 257), "", "a\u{1}b"])
    func evaluate_withAnInvalidUser_isRefusedNamingIt(user: String) throws {
        let api = try APIHarness()
        defer { api.stop() }
        let escaped = user.replacingOccurrences(of: "\u{1}", with: "\\u0001")
        let refused = try api.call("POST", "/v1/evaluate", json: #"{"user": "\#(escaped)", "context": {}}"#)
        #expect(refused.status == 400)
        #expect(refused.errorField == "user")
    }
}
