import Foundation
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// Requests a hostile client could send: numbers at the edges of Int64 and Double, contexts past every per-user
/// cap. Each gets a clear 4xx; the daemon keeps answering.
@Suite(.serialized) struct HostileNumbersAndLimitsTests {
    static let substrRules = #"""
        {"flags": {
          "domain": {"state": "ENABLED", "variants": {"short": "short", "long": "long"}, "defaultVariant": "short",
                     "targeting": {"if": [{"==": [{"substr": [{"var": "email"}, {"var": "offset"}]}, "example.com"]}, "long", null]}},
          "bucket": {"state": "ENABLED", "variants": {"a": "a", "b": "b"}, "defaultVariant": "a",
                     "targeting": {"fractional": [{"var": "email"}, ["a", {"var": "offset"}], ["b", 1]]}}}}
        """#

    func ops(_ items: [String]) -> String { #"{"ops": [\#(items.joined(separator: ","))]}"# }

    // MARK: Overflow

    @Test(arguments: [
        (#"{"op": "increment", "counter": "k", "by": -2}"#, #"{"op": "decrement", "counter": "k", "by": 9223372036854775807}"#),
        (#"{"op": "setCounter", "counter": "k", "value": -9223372036854775808}"#, #"{"op": "decrement", "counter": "k", "by": 1}"#),
        (#"{"op": "setCounter", "counter": "k", "value": 9223372036854775807}"#, #"{"op": "increment", "counter": "k", "by": 1}"#),
        (#"{"op": "setCounter", "counter": "k", "value": -9223372036854775808}"#, #"{"op": "increment", "counter": "k", "by": -1}"#)
    ])
    func patch_counterPastTheIntRange_refusesWithOverflow_andKeepsServing(first: String, second: String) throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: ops([#"{"op": "setCounter", "counter": "k", "value": 0}"#])).status == 200)
        let refused = try api.call("PATCH", "/v1/users/u1/context", json: ops([first, second]))
        #expect(refused.status == 422)
        #expect(refused.errorCode == "overflow")
        #expect(refused.errorField == "ops[1].by")
        #expect(refused.body?["error"]?["retryable"] == false)
        // The whole batch was refused: the first op did not land either.
        #expect(try api.call("GET", "/v1/users/u1").body?["counters"]?["k"] == 0)
        #expect(try api.call("GET", "/healthz").status == 200)
        #expect(api.database.log.lastSeq == 1)
    }

    // MARK: JSON Logic on hostile numbers, from each place a context comes from

    @Test func ofrepContext_offset1e19_answersTheDefaultVariant() throws {
        let api = try APIHarness(rulesText: Self.substrRules)
        defer { api.stop() }
        for flag in ["domain", "bucket"] {
            for offset in ["1e19", "1e300", "-1e300", #""Infinity""#, #""-Infinity""#, #""inf""#] {
                let reply = try api.call(
                    "POST", "/ofrep/v1/evaluate/flags/\(flag)",
                    json: #"{"context": {"targetingKey": "u1", "email": "someone@example.com", "offset": \#(offset)}}"#)
                #expect(reply.status == 200, "\(flag) \(offset)")
                if flag == "domain" { #expect(reply.body?["value"] == "short", "\(offset)") }
            }
        }
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags", json: #"{"context": {"email": "x@example.com", "offset": 1e19}}"#).status == 200)
    }

    @Test func inlineContext_offset1e19_evaluates() throws {
        let api = try APIHarness(rulesText: Self.substrRules)
        defer { api.stop() }
        let reply = try api.call("POST", "/v1/evaluate", json: #"{"context": {"attributes": {"email": "someone@example.com", "offset": 1e19}}}"#)
        #expect(reply.status == 200)
        #expect(reply.body?["flags"]?["domain"]?["value"] == "short")
    }

    /// The poison pill: a stored attribute that crashed every evaluation, and so every restart after it was logged.
    @Test func storedAttribute_offset1e19_evaluatesBeforeAndAfterRestart() throws {
        let directory = NSTemporaryDirectory() + "specd-poison-\(UUID().uuidString)"
        do {
            let api = try APIHarness(directory: directory, rulesText: Self.substrRules)
            defer { api.stop() }
            let stored = try api.call(
                "PATCH", "/v1/users/u1/context",
                json: ops([
                    #"{"op": "setAttribute", "key": "email", "value": "someone@example.com"}"#,
                    #"{"op": "setAttribute", "key": "offset", "value": 1e19}"#
                ]))
            #expect(stored.status == 200)
            #expect(try api.call("GET", "/v1/users/u1/flags").body?["flags"]?["domain"]?["value"] == "short")
        }
        let restarted = try APIHarness(directory: directory, rulesText: Self.substrRules)
        defer { restarted.stop() }
        #expect(try restarted.call("GET", "/v1/users/u1/flags/domain").body?["value"] == "short")
        #expect(try restarted.call("POST", "/ofrep/v1/evaluate/flags/bucket", json: #"{"context": {"targetingKey": "u1"}}"#).status == 200)
    }

    // MARK: Per-user caps (defaults)

    @Test func patch_newCounterPastTheCap_refusesTheBatchNamingTheLimit() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let fill = ops((0..<1000).map { #"{"op": "increment", "counter": "c\#($0)"}"# })
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: fill).status == 200)
        let refused = try api.call(
            "PATCH", "/v1/users/u1/context",
            json: ops([
                #"{"op": "increment", "counter": "c1"}"#, #"{"op": "increment", "counter": "one-too-many"}"#
            ]))
        #expect(refused.status == 422)
        #expect(refused.errorCode == "limit_exceeded")
        #expect(refused.errorField == "ops[1]")
        let message = refused.body?["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("limits.maxCountersPerUser") && message.contains("1000"), "\(message)")
        #expect(try api.call("GET", "/v1/users/u1").body?["counters"]?["c1"] == 1)
        // Keys already there still change.
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: ops([#"{"op": "increment", "counter": "c999"}"#])).status == 200)
    }

    @Test(arguments: [
        (#"{"op": "increment", "counter": "\#(String(repeating: "k", count: 257))"}"#, "limits.maxKeyBytes"),
        (#"{"op": "addSegment", "segment": "\#(String(repeating: "s", count: 257))"}"#, "limits.maxKeyBytes"),
        (#"{"op": "setAttribute", "key": "big", "value": "\#(String(repeating: "v", count: 16 * 1024))"}"#, "limits.maxAttributeValueBytes")
    ])
    func patch_pastAByteLimit_isRefusedNamingIt(op: String, limit: String) throws {
        let api = try APIHarness()
        defer { api.stop() }
        let refused = try api.call("PATCH", "/v1/users/u1/context", json: ops([op]))
        #expect(refused.status == 422)
        #expect(refused.errorCode == "limit_exceeded")
        #expect(refused.errorField == "ops[0]")
        #expect(refused.body?["error"]?["message"]?.stringValue?.contains(limit) == true)
    }

    @Test func donation_toANewEventPastTheCap_isRefusedNamingTheEvent() throws {
        let api = try APIHarness()
        defer { api.stop() }
        for index in 0..<256 { #expect(try api.call("POST", "/v1/users/u1/events/e\(index)").status == 200) }
        let refused = try api.call("POST", "/v1/users/u1/events/one-too-many")
        #expect(refused.status == 422)
        #expect(refused.errorCode == "limit_exceeded")
        #expect(refused.errorField == "event")
        #expect(refused.body?["error"]?["message"]?.stringValue?.contains("limits.maxDonationEventsPerUser") == true)
        #expect(try api.call("POST", "/v1/users/u1/events/e0").status == 200)
    }

    @Test func inlineContext_pastACap_isRefusedNamingIt() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let attributes = (0...1000).map { #""a\#($0)": 1"# }.joined(separator: ",")
        let refused = try api.call("POST", "/v1/evaluate", json: #"{"context": {"attributes": {\#(attributes)}}}"#)
        #expect(refused.status == 422)
        #expect(refused.errorCode == "limit_exceeded")
        #expect(refused.errorField == "context.attributes")
        #expect(refused.body?["error"]?["message"]?.stringValue?.contains("limits.maxAttributesPerUser") == true)
        let segments = (0...1000).map { #""s\#($0)""# }.joined(separator: ",")
        #expect(try api.call("POST", "/v1/evaluate", json: #"{"context": {"segments": [\#(segments)]}}"#).errorCode == "limit_exceeded")
    }

    @Test func ofrepContext_pastTheAttributeCap_isInvalidContextNamingTheLimit() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let members = (0...1000).map { #""a\#($0)": 1"# }.joined(separator: ",")
        for path in ["/ofrep/v1/evaluate/flags/promo-banner", "/ofrep/v1/evaluate/flags"] {
            let refused = try api.call("POST", path, json: #"{"context": {"targetingKey": "u1", \#(members)}}"#)
            #expect(refused.status == 400)
            #expect(refused.body?["errorCode"] == "INVALID_CONTEXT")
            #expect(refused.body?["errorDetails"]?.stringValue?.contains("limits.maxAttributesPerUser") == true)
        }
        // The targeting key is not an attribute: 1000 attributes besides it fit.
        let fits = (0..<1000).map { #""a\#($0)": 1"# }.joined(separator: ",")
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags", json: #"{"context": {"targetingKey": "u1", \#(fits)}}"#).status == 200)
    }

    @Test func nfcAndNfdKeys_areTwoCountersThroughTheAPI() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let patch = ops([
            #"{"op": "increment", "counter": "caf\u00e9"}"#, #"{"op": "increment", "counter": "cafe\u0301", "by": 2}"#,
            #"{"op": "addSegment", "segment": "caf\u00e9"}"#, #"{"op": "addSegment", "segment": "cafe\u0301"}"#
        ])
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: patch).status == 200)
        let user = try api.call("GET", "/v1/users/u1").body
        #expect(user?["counters"]?.objectValue?.count == 2)
        #expect(user?["counters"]?["caf\u{E9}"] == 1)
        #expect(user?["counters"]?["cafe\u{301}"] == 2)
        #expect(user?["segments"]?.arrayValue?.count == 2)
    }

    // MARK: Caps apply to new writes, never to replay

    @Test func reopen_underLowerCaps_keepsEveryAcknowledgedKey() throws {
        let directory = NSTemporaryDirectory() + "specd-caps-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let database = try Database(options: .init(directory: directory, fsync: .always))
            _ = try database.writeAndWait(
                Mutation(
                    user: "u", now: Instant(milliseconds: 0),
                    actions: (0..<5).map { .increment(counter: "c\($0)", by: 1) }))
            database.log.close()
        }
        var lower = ContextLimits()
        lower.maxCounters = 2
        let database = try Database(options: .init(directory: directory, fsync: .always, limits: lower))
        defer { database.log.close() }
        #expect(database.store.context(of: "u")?.counters.count == 5)
        #expect(throws: StoreError.rejected(.limitExceeded(index: 0, limit: .counters, value: 2))) {
            try database.writeAndWait(Mutation(user: "u", now: Instant(milliseconds: 1), actions: [.increment(counter: "new", by: 1)]))
        }
        _ = try database.writeAndWait(Mutation(user: "u", now: Instant(milliseconds: 1), actions: [.increment(counter: "c4", by: 1)]))
        #expect(database.store.context(of: "u")?.counters["c4"] == 2)
    }
}

@Suite struct ContextLimitsOptionsTests {
    @Test func configFile_setsEveryPerUserLimit() throws {
        let path = NSTemporaryDirectory() + "specd-config-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"""
        {"limits": {"maxCountersPerUser": 11, "maxEventsPerUser": 12, "maxFlagsPerUser": 13, "maxAttributesPerUser": 14,
                    "maxSegmentsPerUser": 15, "maxDonationEventsPerUser": 16, "maxAttributeValueBytes": 17, "maxKeyBytes": 18}}
        """#.write(toFile: path, atomically: true, encoding: .utf8)
        let options = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        #expect(
            options.contextLimits
                == ContextLimits(
                    maxCounters: 11, maxEvents: 12, maxFlags: 13, maxAttributes: 14, maxSegments: 15,
                    maxDonationEvents: 16, maxAttributeValueBytes: 17, maxKeyBytes: 18))
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).contextLimits == ContextLimits())
        // Every cap has a config key, under the name its messages use.
        for limit in ContextLimits.Limit.allCases { #expect(DaemonOptions.limitKeys[limit.configName] != nil, "\(limit)") }
    }
}
