import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import specd

/// `validUntil` on every flag answer (docs/api.md, "validUntil"): the instant the answer next changes by the clock
/// alone, the one that drives clock pushes; and the caching headers that keep a copy honest under writes.
@Suite(.serialized) struct ValidUntilTests {
    static let rules = """
        {"flags": {
          "rested": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
          "opens": {"metadata": {"team": "growth"}, "when": {"dateRange": {"from": "2026-03-10T13:00:00Z"}}},
          "vip": {"when": {"segment": "vip"}},
          "dark": {"enabled": false, "when": {"always": true}},
          "tier": {"cases": [{"when": {"dateRange": {"to": "2026-03-10T12:30:00Z"}}, "value": "early"},
                             {"when": {"hourIn": [14, 15]}, "value": "afternoon"}], "fallback": "none"}}}
        """

    func harness() throws -> APIHarness {
        let api = try APIHarness(rulesText: Self.rules)
        // `shown` at 12:00: `rested` turns true at 13:00.
        #expect(try api.call("POST", "/v1/users/u1/events/shown").status == 200)
        return api
    }

    @Test func singleFlag_carriesValidUntil_andChangesThere() throws {
        let api = try harness()
        defer { api.stop() }
        let reply = try api.call("GET", "/v1/users/u1/flags/rested")
        #expect(reply.body?["value"] == false)
        #expect(reply.body?["validUntil"] == "2026-03-10T13:00:00Z")
        api.clock.advance(3_600_000 - 1)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == false)
        api.clock.advance(1)
        let after = try api.call("GET", "/v1/users/u1/flags/rested")
        #expect(after.body?["value"] == true)
        // Nothing of the clock can change it again: no instant is known.
        #expect(after.body?["validUntil"] == nil)
    }

    @Test func allFlags_eachFlagCarriesItsOwnValidUntil_orNone() throws {
        let api = try harness()
        defer { api.stop() }
        let flags = try #require(try api.call("GET", "/v1/users/u1/flags").body?["flags"])
        #expect(flags["rested"]?["validUntil"] == "2026-03-10T13:00:00Z")
        #expect(flags["opens"]?["validUntil"] == "2026-03-10T13:00:00Z")
        // The range closes one millisecond after its inclusive end.
        #expect(flags["tier"]?["validUntil"] == "2026-03-10T12:30:00.001Z")
        #expect(flags["vip"]?["validUntil"] == nil)
        #expect(flags["dark"]?["validUntil"] == nil)
        #expect(flags["rested"]?["value"] == false)
    }

    @Test func whatIf_validUntilIsRelativeToTheAtInstant() throws {
        let api = try harness()
        defer { api.stop() }
        // At 12:45 the first case has closed; the second opens at 14:00 (UTC, no zone set).
        let reply = try api.call("GET", "/v1/users/u1/flags/tier?at=2026-03-10T12:45:00Z")
        #expect(reply.body?["value"] == "none")
        #expect(reply.body?["validUntil"] == "2026-03-10T14:00:00Z")
        let all = try api.call("GET", "/v1/users/u1/flags?at=2026-03-10T14:30:00Z")
        #expect(all.body?["flags"]?["tier"]?["validUntil"] == "2026-03-10T16:00:00Z")
        #expect(all.body?["flags"]?["rested"]?["validUntil"] == nil)
    }

    @Test func evaluate_eachFlagCarriesValidUntil_atTheRequestedInstant() throws {
        let api = try harness()
        defer { api.stop() }
        let reply = try api.call(
            "POST", "/v1/evaluate", json: #"{"context": {"events": {"shown": "2026-03-10T11:30:00Z"}}, "flags": ["rested", "vip", "missing"]}"#)
        #expect(reply.body?["flags"]?["rested"]?["validUntil"] == "2026-03-10T12:30:00Z")
        #expect(reply.body?["flags"]?["vip"]?["validUntil"] == nil)
        #expect(reply.body?["flags"]?["missing"]?["validUntil"] == nil)
        let then = try api.call("POST", "/v1/evaluate", json: #"{"context": {}, "flags": ["opens"], "at": "2026-03-10T10:00:00Z"}"#)
        #expect(then.body?["flags"]?["opens"]?["validUntil"] == "2026-03-10T13:00:00Z")
    }

    @Test func ofrep_singleAndBulk_putValidUntilInMetadata_besideTheFlagsOwn() throws {
        let api = try harness()
        defer { api.stop() }
        let single = try api.call("POST", "/ofrep/v1/evaluate/flags/opens", json: #"{"context": {"targetingKey": "u1"}}"#)
        #expect(single.body?["metadata"]?["validUntil"] == "2026-03-10T13:00:00Z")
        #expect(single.body?["metadata"]?["team"] == "growth")
        #expect(single.header("Cache-Control") == "private, no-cache")
        #expect(single.header("ETag") != nil)
        let bulk = try api.call("POST", "/ofrep/v1/evaluate/flags", json: #"{"context": {"targetingKey": "u1"}}"#)
        let items = bulk.body?["flags"]?.arrayValue ?? []
        let rested = items.first { $0["key"] == "rested" }
        #expect(rested?["metadata"]?["validUntil"] == "2026-03-10T13:00:00Z")
        #expect(items.first { $0["key"] == "vip" }?["metadata"] == [:])
        #expect(bulk.header("Cache-Control") == "private, no-cache")
    }

    @Test(arguments: ["/v1/users/u1/flags", "/v1/users/u1/flags/rested"])
    func flagAnswers_revalidate_andA304KeepsTheCachingHeaders(path: String) throws {
        let api = try harness()
        defer { api.stop() }
        let first = try api.call("GET", path)
        #expect(first.header("Cache-Control") == "private, no-cache")
        #expect(first.header("Cache-Control")?.contains("max-age") == false)
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        let again = try api.call("GET", path, headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.header("ETag") == etag)
        #expect(again.header("Cache-Control") == "private, no-cache")
        // Half-way to validUntil the copy still validates; a write then changes the answer (the cooldown starts
        // again, so it holds until 13:30): the copy no longer validates, long before the old validUntil.
        api.clock.advance(30 * 60_000)
        #expect(try api.call("GET", path, headers: ["If-None-Match": etag]).status == 304)
        #expect(try api.call("POST", "/v1/users/u1/events/shown").status == 200)
        let changed = try api.call("GET", path, headers: ["If-None-Match": etag])
        #expect(changed.status == 200)
        #expect(changed.text.contains(#""validUntil":"2026-03-10T13:30:00Z""#))
    }

    @Test func clockPassingValidUntil_changesTheETag() throws {
        let api = try harness()
        defer { api.stop() }
        let first = try api.call("GET", "/v1/users/u1/flags/rested")
        let etag = try #require(first.header("ETag"))
        api.clock.advance(30 * 60_000)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested", headers: ["If-None-Match": etag]).status == 304)
        api.clock.advance(30 * 60_000)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested", headers: ["If-None-Match": etag]).status == 200)
    }

    /// The same instant drives clock pushes: the user's earliest validUntil is when the clock wakes for a stream,
    /// and the flag that carried it is the one pushed then.
    @Test func streamPush_happensAtTheEarliestValidUntil() throws {
        let api = try harness()
        defer { api.stop() }
        let flags = try #require(try api.call("GET", "/v1/users/u1/flags").body?["flags"]?.objectValue)
        let instants = flags.compactMap { key, answer in answer["validUntil"]?.stringValue.flatMap(ISO8601.parse).map { (key, $0) } }
        let (key, due) = try #require(instants.min { $0.1 < $1.1 })
        #expect(key == "tier")
        let client = try api.stream("/v1/users/u1/stream")
        // The schedule is made just after the stream's prelude is sent.
        let deadline = ContinuousClock.now + .seconds(2)
        while api.engine.nextDue == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(api.engine.nextDue == due)
        api.clock.advance(due - api.clock.now())
        api.engine.runDue(now: api.clock.now())
        let events = try client.readEvents(1)
        #expect(events.first?.contains(#""key":"tier""#) == true)
    }
}
