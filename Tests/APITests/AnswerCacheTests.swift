import Foundation
import HTTP
import TestRandom
import Testing

@testable import API
@testable import Engine
@testable import Rules
@testable import specd

/// One-flag answers kept for the next read (`AnswerCache`): a kept answer is served only while the rule set, the
/// user's stored context, the app version and the clock are what it was computed from, and the cache stays within
/// its budget.
@Suite(.serialized) struct AnswerCacheTests {
    static let rules = """
        {"flags": {
          "rested": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
          "regular": {"when": {"counter": {"key": "visits", "gte": 2}}},
          "modern": {"when": {"appVersion": {"gte": "2.0"}}},
          "half": {"when": {"rollout": {"percent": 50}}},
          "timed": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"if": [{">=": [{"var": "$flagd.timestamp"}, 1773147600]}, "on", "off"]}},
          "sale-banner": {"when": {"prerequisite": {"flag": "timed", "variant": "on"}}}}}
        """

    func harness(_ rules: String = Self.rules) throws -> APIHarness { try APIHarness(rulesText: rules) }

    @Test func aRepeatedRead_isAnsweredFromTheCache_withTheSameBytesAndTag() throws {
        let api = try harness()
        defer { api.stop() }
        let first = try api.call("GET", "/v1/users/u1/flags/regular")
        let second = try api.call("GET", "/v1/users/u1/flags/regular")
        #expect(first.status == 200 && second.status == 200)
        #expect(second.text == first.text)
        #expect(second.header("ETag") == first.header("ETag"))
        #expect(api.daemon.answers.hits == 1)
        #expect(api.daemon.answers.misses == 1)
        // A revalidation with the kept tag is a 304, as for a computed answer.
        let revalidated = try api.call("GET", "/v1/users/u1/flags/regular", headers: ["If-None-Match": first.header("ETag") ?? ""])
        #expect(revalidated.status == 304)
        // Each read is counted as an evaluation, kept or computed.
        let metrics = try api.call("GET", "/metrics").text
        #expect(metrics.contains(#"specd_evaluations_total{flag="regular"} 3"#))
        #expect(metrics.contains("specd_answer_cache_hits_total 2"))
    }

    /// A kept answer goes out whole however it is read: prepared (fields and body made once), it is the same
    /// bytes with CORS headers added to it, under `HEAD` (its length, no body) and to a revalidation (304).
    @Test func aKeptAnswer_goesOutWhole_withCORS_underHEAD_andRevalidated() throws {
        let api = try APIHarness(rulesText: Self.rules, cors: CORSPolicy(origins: .any))
        defer { api.stop() }
        let origin = ["Origin": "https://app.example"]
        let first = try api.call("GET", "/v1/users/u1/flags/regular", headers: origin)
        let kept = try api.call("GET", "/v1/users/u1/flags/regular", headers: origin)
        let plain = try api.call("GET", "/v1/users/u1/flags/regular")
        #expect(first.status == 200 && kept.status == 200 && plain.status == 200)
        #expect(first.body?["key"] == "regular")
        #expect(kept.text == first.text && plain.text == first.text)
        #expect(kept.header("ETag") == first.header("ETag") && plain.header("ETag") == first.header("ETag"))
        #expect(kept.header("Content-Length") == "\(first.text.utf8.count)")
        #expect(first.header("Access-Control-Allow-Origin") != nil)
        #expect(kept.header("Access-Control-Allow-Origin") == first.header("Access-Control-Allow-Origin"))
        #expect(kept.header("Cache-Control") == "private, no-cache")
        let head = try api.call("HEAD", "/v1/users/u1/flags/regular", headers: origin)
        #expect(head.status == 200 && head.text.isEmpty)
        #expect(head.header("Content-Length") == "\(first.text.utf8.count)")
        #expect(head.header("ETag") == first.header("ETag"))
        let revalidated = try api.call(
            "GET", "/v1/users/u1/flags/regular", headers: ["If-None-Match": first.header("ETag") ?? "", "Origin": "https://app.example"])
        #expect(revalidated.status == 304 && revalidated.text.isEmpty)
        #expect(revalidated.header("ETag") == first.header("ETag"))
        #expect(revalidated.header("Access-Control-Allow-Origin") != nil)
        #expect(api.daemon.answers.hits == 4)
        #expect(api.daemon.answers.misses == 1)
    }

    /// A kept answer is found before the flag is looked up: each hit counts the evaluation of its own flag.
    @Test func hitsOnSeveralFlags_eachCountTheirOwnFlag() throws {
        let api = try harness()
        defer { api.stop() }
        for (flag, reads) in [("rested", 3), ("regular", 2), ("modern", 4)] {
            for _ in 0..<reads { #expect(try api.call("GET", "/v1/users/u1/flags/\(flag)").status == 200) }
        }
        #expect(api.daemon.answers.hits == 6)
        #expect(api.daemon.answers.misses == 3)
        let metrics = try api.call("GET", "/metrics").text
        #expect(metrics.contains(#"specd_evaluations_total{flag="rested"} 3"#))
        #expect(metrics.contains(#"specd_evaluations_total{flag="regular"} 2"#))
        #expect(metrics.contains(#"specd_evaluations_total{flag="modern"} 4"#))
    }

    /// Flags the cache never keeps (unknown inputs) are no misses, however often they are read.
    @Test func flagsNeverKept_countNoMiss() throws {
        let api = try harness()
        defer { api.stop() }
        for _ in 0..<3 { #expect(try api.call("GET", "/v1/users/u1/flags/timed").status == 200) }
        #expect(api.daemon.answers.hits == 0)
        #expect(api.daemon.answers.misses == 0)
    }

    /// An unknown flag is a 404 before a malformed version or instant is a 400, kept answers or not.
    @Test func anUnknownFlag_isReportedBeforeABadVersionOrInstant() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/regular").status == 200)
        let unknown = try api.call("GET", "/v1/users/u1/flags/nope", headers: ["X-App-Version": "one"])
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("flag_not_found"))
        #expect(try api.call("GET", "/v1/users/u1/flags/nope?at=yesterday").status == 404)
        let badVersion = try api.call("GET", "/v1/users/u1/flags/regular", headers: ["X-App-Version": "one"])
        #expect(badVersion.status == 400)
        #expect(badVersion.text.contains("X-App-Version"))
        #expect(try api.call("GET", "/v1/users/u1/flags/regular?at=yesterday").status == 400)
        #expect(try api.call("GET", "/v1/users/u1/flags/nope").status == 404)
    }

    @Test func aWrite_isSeenByTheNextRead() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/regular").body?["value"] == false)
        for _ in 0..<2 {
            #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "visits"}]}"#).status == 200)
        }
        #expect(try api.call("GET", "/v1/users/u1/flags/regular").body?["value"] == true)
        // A write that changes nothing the flag reads still makes a new context: recomputed, same answer.
        #expect(try api.call("POST", "/v1/users/u1/events/other").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/regular").body?["value"] == true)
        // Deleting the user forgets the context: the answer of a user with none.
        #expect(try api.call("DELETE", "/v1/users/u1").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/regular").body?["value"] == false)
    }

    @Test func theClock_reachingValidUntil_recomputes() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("POST", "/v1/users/u1/events/shown").status == 200)
        let before = try api.call("GET", "/v1/users/u1/flags/rested")
        #expect(before.body?["value"] == false)
        #expect(before.body?["validUntil"] == "2026-03-10T13:00:00Z")
        api.clock.advance(3_600_000 - 1)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == false)
        api.clock.advance(1)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == true)
        // A clock set back before the instant an answer was computed does not reuse it.
        api.clock.advance(-2)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == false)
    }

    @Test func eachAppVersion_hasItsOwnAnswer() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/modern", headers: ["X-App-Version": "2.1"]).body?["value"] == true)
        #expect(try api.call("GET", "/v1/users/u1/flags/modern", headers: ["X-App-Version": "1.9"]).body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/modern").body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/modern", headers: ["X-App-Version": "2.1"]).body?["value"] == true)
        #expect(api.daemon.answers.count == 3)
    }

    @Test func aReload_recomputes() throws {
        let api = try harness(#"{"flags": {"f": {"when": {"always": false}}}}"#)
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/f").body?["value"] == false)
        try #"{"flags": {"f": {"when": {"always": true}}}}"#.write(toFile: api.rules.path!, atomically: true, encoding: .utf8)
        #expect(try api.call("POST", "/v1/admin/reload").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/f").body?["value"] == true)
    }

    /// Two spellings of one text are two user ids in the store, so two keys here: `String`'s `==` would have
    /// made them one, and given the second user the first one's rollout.
    @Test func twoSpellingsOfOneUserID_areTwoKeys() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/caf%C3%A9/flags/half").status == 200)
        #expect(try api.call("GET", "/v1/users/cafe%CC%81/flags/half").status == 200)
        #expect(api.daemon.answers.count == 2)
        #expect(api.daemon.answers.hits == 0)
    }

    /// `timed` turns on at 13:00 by `$flagd.timestamp`, a clock no `validUntil` follows; `sale-banner` depends on
    /// it. Kept, `sale-banner` would have stayed false past 13:00 (found in review).
    @Test func aFlagReachingAFlagdDefinition_isComputedEveryTime_andFollowsItsClock() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/sale-banner").body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/timed").body?["value"] == false)
        api.clock.advance(3_600_000)
        #expect(try api.call("GET", "/v1/users/u1/flags/sale-banner").body?["value"] == true)
        #expect(try api.call("GET", "/v1/users/u1/flags/timed").body?["value"] == true)
        #expect(api.daemon.answers.count == 0)
    }

    /// Nothing of an erased user stays in memory: its kept answers go with it, other users' stay.
    @Test func erasingAUser_forgetsItsAnswers() throws {
        let api = try harness()
        defer { api.stop() }
        for user in ["u1", "u2"] {
            #expect(try api.call("POST", "/v1/users/\(user)/events/shown").status == 200)
            #expect(try api.call("GET", "/v1/users/\(user)/flags/regular").status == 200)
            #expect(try api.call("GET", "/v1/users/\(user)/flags/rested").status == 200)
        }
        #expect(api.daemon.answers.count == 4)
        #expect(try api.call("DELETE", "/v1/users/u1").status == 200)
        #expect(api.daemon.answers.count == 2)
        #expect(!api.daemon.answers.contains(AnswerCache.Key(user: "u1", flag: "regular", appVersion: nil)))
        #expect(api.daemon.answers.contains(AnswerCache.Key(user: "u2", flag: "regular", appVersion: nil)))
    }

    /// Two flags whose keys are two spellings of one text are two flags in the rule set (keys are bytes), so two
    /// answers here; as `String`s the keys were one, and the second flag answered with the first one's.
    @Test func twoSpellingsOfOneFlagKey_areTwoAnswers() throws {
        let api = try harness(#"{"flags": {"caf\u00e9": {"when": {"always": true}}, "cafe\u0301": {"when": {"always": false}}}}"#)
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/caf%C3%A9").body?["value"] == true)
        #expect(try api.call("GET", "/v1/users/u1/flags/cafe%CC%81").body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/caf%C3%A9").body?["value"] == true)
        #expect(api.daemon.answers.count == 2)
    }

    @Test func flagdDefinitions_whatIf_andExplained_areNeverKept() throws {
        let api = try harness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/u1/flags/timed").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/regular?at=2026-03-10T13:00:00Z").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/regular?explain=1").status == 200)
        #expect(api.daemon.answers.count == 0)
        #expect(api.daemon.answers.misses == 0)
    }

    /// The example rules read by two daemons, one keeping answers and one not, through the same random writes,
    /// clock moves (milliseconds to weeks) and reads: every kept answer is the one computing it gives. A `validUntil`
    /// later than the answer's real next change would show here as a stale answer.
    @Test(arguments: [1, 2, 3])
    func keptAnswers_areWhatComputingGives_overRandomWritesAndClockMoves(seed: Int) throws {
        let kept = try APIHarness(answerCacheBytes: 1 << 20)
        let computed = try APIHarness(answerCacheBytes: 0)
        defer {
            kept.stop()
            computed.stop()
        }
        var random = SplitMix(seed: UInt64(seed))
        let flags = [
            "promo-banner", "onboarding-tip", "rating-prompt", "feature-announcement", "discount", "first-week-tour",
            "returning-user-welcome", "power-user-badge", "review-nudge", "checkout", "support-chat", "tip-search"
        ]
        let writes = [
            ("POST", "/events/appStarted", nil), ("POST", "/events/paywallViewed", nil),
            ("PATCH", "/context", #"{"ops": [{"op": "increment", "counter": "editor_opened"}]}"#),
            (
                "PATCH", "/context",
                #"{"ops": [{"op": "increment", "counter": "promo_banner_count"}, {"op": "recordEvent", "event": "last_promo_banner"}]}"#
            ),
            (
                "PATCH", "/context",
                #"{"ops": [{"op": "setAttribute", "key": "score", "value": 90}, {"op": "addSegment", "segment": "vip", "ttl": "2h"}]}"#
            ),
            ("PATCH", "/context", #"{"ops": [{"op": "recordEvent", "event": "project_completed"}]}"#)
        ]
        let versions: [String?] = [nil, "2.1"]
        var compared = 0
        for _ in 0..<400 {
            let user = "u\(random.next(upTo: 3))"
            switch random.next(upTo: 10) {
            case 0, 1:
                let (method, path, body) = writes[random.next(upTo: writes.count)]
                let a = try kept.call(method, "/v1/users/\(user)\(path)", json: body, headers: ["X-App-Version": "1.2"])
                let b = try computed.call(method, "/v1/users/\(user)\(path)", json: body, headers: ["X-App-Version": "1.2"])
                #expect(a.status == b.status)
            case 2:
                let step = [1, 999, 30_000, 3_600_000, 86_400_000, 7 * 86_400_000][random.next(upTo: 6)]
                kept.clock.advance(Int64(step))
                computed.clock.advance(Int64(step))
                kept.engine.runDue(now: kept.clock.now())
                computed.engine.runDue(now: computed.clock.now())
            default:
                let flag = flags[random.next(upTo: flags.count)]
                var headers: [String: String] = [:]
                if let version = versions[random.next(upTo: 2)] { headers["X-App-Version"] = version }
                let a = try kept.call("GET", "/v1/users/\(user)/flags/\(flag)", headers: headers)
                let b = try computed.call("GET", "/v1/users/\(user)/flags/\(flag)", headers: headers)
                #expect(a.status == b.status)
                #expect(a.text == b.text, "\(user) \(flag) \(headers)")
                compared += 1
            }
        }
        #expect(compared > 200)
        #expect(kept.daemon.answers.hits > 20)
        #expect(computed.daemon.answers.hits == 0)
    }

    // MARK: the cache alone

    /// An answer is kept plain; read again without revalidating, it is prepared (`prepare`) and the entry holds
    /// the prepared answer, whose 200 later such reads get ready to send; a revalidating read (`If-None-Match`)
    /// gets the answer, whose tag decides between 304 and 200. Preparing an answer the entry no longer holds
    /// leaves the entry alone.
    @Test func aKeptAnswer_isPreparedWhenReadAgain_andThenHandedOutAsIts200() {
        let cache = AnswerCache(capacityBytes: 100_000)
        let key = AnswerCache.Key(user: "u", flag: "f", appVersion: nil)
        let body = Array(#"{"value":true}"#.utf8)
        let plain = ETag.Tagged(body: body, etag: "\"p\"", headers: ETag.flagAnswerCaching)
        cache.keep(plain, flagPosition: 3, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
        let bytesKept = cache.bytes
        guard case .answer(let found)? = cache.answer(for: key, served: served, context: nil, now: now)?.kept else {
            Issue.record("a plain answer handed out prepared")
            return
        }
        #expect(found === plain)
        let fields = cache.prepare(found, for: key)
        #expect(HTTPResponse(status: .ok, preparedWithBody: fields).body == body)
        // The prepared answer replaced the plain one, and counts what it holds.
        #expect(cache.count == 1)
        #expect(cache.bytes >= bytesKept && cache.bytes <= bytesKept + 200)
        let ready = cache.answer(for: key, served: served, context: nil, now: now)
        guard case .ok(let readyFields)? = ready?.kept else {
            Issue.record("no prepared 200: \(String(describing: ready?.kept))")
            return
        }
        #expect(readyFields == fields)
        #expect(ready?.flagPosition == 3)
        guard case .answer(let revalidated)? = cache.answer(for: key, served: served, context: nil, now: now, revalidating: true)?.kept
        else {
            Issue.record("no answer for a revalidating read")
            return
        }
        #expect(revalidated.isPrepared && revalidated.etag == plain.etag)
        // Replaced meanwhile by a newer answer: preparing the old one hands out its 200 and keeps the newer one.
        let newer = answer(10)
        cache.keep(newer, flagPosition: 3, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
        _ = cache.prepare(plain, for: key)
        guard case .answer(let stillNewer)? = cache.answer(for: key, served: served, context: nil, now: now)?.kept else {
            Issue.record("the newer answer was replaced")
            return
        }
        #expect(stillNewer === newer)
    }

    /// Preparing counts against the budget like keeping: answers prepared one by one never hold more than it.
    @Test func preparingKeptAnswers_staysWithinTheBudget() {
        let cache = AnswerCache(capacityBytes: 8_000)
        for index in 0..<100 {
            let key = AnswerCache.Key(user: "user-\(index)", flag: "f", appVersion: nil)
            let plain = ETag.Tagged(body: Array(repeating: 0x61, count: 60), etag: "\"t\"", headers: ETag.flagAnswerCaching)
            cache.keep(plain, flagPosition: 0, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
            _ = cache.prepare(plain, for: key)
            #expect(cache.bytes <= 8_000)
            #expect(cache.contains(key))
        }
    }

    let served = RulesHost.Served(try! RuleSetLoader.load(text: #"{"flags": {}}"#).get(), ledger: EvaluationLedger())
    let now = Instant(milliseconds: 1_000)

    func answer(_ size: Int) -> AnswerCache.Answer { ETag.Tagged(body: Array(repeating: 0x61, count: size), etag: "\"t\"", headers: [:]) }

    /// A kept answer holds its rule set and context weakly: a reload or a write lets the old ones go.
    @Test func aKeptAnswer_keepsNoRuleSetOrContextAlive() throws {
        let cache = AnswerCache(capacityBytes: 100_000)
        let key = AnswerCache.Key(user: "u", flag: "f", appVersion: nil)
        weak var oldRules: RulesHost.Served?
        weak var oldBox: AnyObject?
        do {
            let rules = RulesHost.Served(try RuleSetLoader.load(text: #"{"flags": {}}"#).get(), ledger: EvaluationLedger())
            var context = UserContext()
            context.counters["c"] = 1
            oldRules = rules
            oldBox = context.box
            cache.keep(answer(10), flagPosition: 0, for: key, served: rules, context: context, computedAt: now, validUntil: nil)
            #expect(cache.answer(for: key, served: rules, context: context, now: now) != nil)
        }
        #expect(oldRules == nil)
        #expect(oldBox == nil)
        #expect(cache.answer(for: key, served: served, context: nil, now: now) == nil)
    }

    @Test func theBudget_boundsTheBytesKept_andTheAnswerJustKeptStays() {
        let cache = AnswerCache(capacityBytes: 10_000)
        for index in 0..<200 {
            let key = AnswerCache.Key(user: "user-\(index)", flag: "f", appVersion: nil)
            cache.keep(answer(100), flagPosition: 0, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
            #expect(cache.bytes <= 10_000)
            #expect(cache.contains(key))
        }
        // Evicted one at a time: the budget is used, not halved.
        let entry = 2 * 3 + "user-199".utf8.count + 1 + answer(100).heldBytes + AnswerCache.entryOverhead
        #expect(cache.count >= 10_000 / entry)
    }

    /// An answer recomputed larger (a write moved the user to a large variant) counts its new size against the
    /// budget like a new one; replaced in place, a generation grew past it (found in review).
    @Test func answersReplacedByLargerOnes_stayWithinTheBudget() {
        let cache = AnswerCache(capacityBytes: 20_000)
        for round in 0..<4 {
            for index in 0..<40 {
                let key = AnswerCache.Key(user: "user-\(index)", flag: "f", appVersion: nil)
                cache.keep(
                    answer(100 + round * 1_000), flagPosition: 0, for: key, served: served, context: nil, computedAt: now,
                    validUntil: nil)
                #expect(cache.bytes <= 20_000)
            }
        }
    }

    @Test func anAnswerLargerThanHalfTheBudget_isNotKept_andABudgetOfZeroKeepsNothing() {
        let small = AnswerCache(capacityBytes: 1_000)
        let key = AnswerCache.Key(user: "u", flag: "f", appVersion: nil)
        small.keep(answer(600), flagPosition: 0, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
        #expect(small.count == 0)
        let none = AnswerCache(capacityBytes: 0)
        none.keep(answer(1), flagPosition: 0, for: key, served: served, context: nil, computedAt: now, validUntil: nil)
        #expect(none.count == 0)
        #expect(none.answer(for: key, served: served, context: nil, now: now) == nil)
    }

    /// Kept with the store's count of changes, an answer is found by that count alone (no context read); another
    /// count sends the read to the context, and an answer the context then confirms is marked with the new count;
    /// a rule set, an instant or a key the answer does not hold for is no answer whatever the count.
    @Test func aKeptAnswer_isFoundByTheStoresCountAlone_untilTheCountMoves_thenByItsContext() {
        let cache = AnswerCache(capacityBytes: 100_000)
        let key = AnswerCache.Key(user: "u", flag: "f", appVersion: nil)
        var context = UserContext()
        context.counters["c"] = 1
        let until = Instant(milliseconds: 2_000)
        cache.keep(answer(10), flagPosition: 0, for: key, served: served, context: context, computedAt: now, validUntil: until, changes: 5)
        guard case .hit(let hit) = cache.answer(for: key, served: served, changes: 5, now: now) else {
            Issue.record("the count the answer was kept with did not find it")
            return
        }
        #expect(hit.body.count == 10)
        #expect(cache.answer(for: key, served: served, changes: 6, now: now).isCheckContext)
        // The context it was computed from confirms it under the new count; that count then finds it alone.
        #expect(cache.answer(for: key, served: served, context: context, now: now, changes: 6) != nil)
        #expect(cache.answer(for: key, served: served, changes: 6, now: now).isHit)
        #expect(cache.answer(for: key, served: served, changes: 5, now: now).isCheckContext)
        // Another context does not confirm it, and leaves its count alone.
        var rewritten = context
        rewritten.counters["c"] = 2
        #expect(cache.answer(for: key, served: served, context: rewritten, now: now, changes: 7) == nil)
        #expect(cache.answer(for: key, served: served, changes: 7, now: now).isCheckContext)
        #expect(cache.answer(for: key, served: served, changes: 6, now: now).isHit)
        // What the count cannot vouch for.
        let reloaded = RulesHost.Served(served.rules, ledger: EvaluationLedger())
        #expect(cache.answer(for: key, served: reloaded, changes: 6, now: now).isNone)
        #expect(cache.answer(for: key, served: served, changes: 6, now: until).isNone)
        #expect(cache.answer(for: key, served: served, changes: 6, now: Instant(milliseconds: 999)).isNone)
        #expect(cache.answer(for: AnswerCache.Key(user: "v", flag: "f", appVersion: nil), served: served, changes: 6, now: now).isNone)
        // Kept without a count (a store that keeps none), an answer is always checked against its context.
        let other = AnswerCache.Key(user: "w", flag: "f", appVersion: nil)
        cache.keep(answer(10), flagPosition: 0, for: other, served: served, context: nil, computedAt: now, validUntil: nil)
        #expect(cache.answer(for: other, served: served, changes: 0, now: now).isCheckContext)
        #expect(cache.hits == 4)
    }

    @Test func aKeptAnswer_holdsOnlyForItsRuleSetContextAndInstants() {
        let cache = AnswerCache(capacityBytes: 100_000)
        let key = AnswerCache.Key(user: "u", flag: "f", appVersion: "1.0")
        var context = UserContext()
        context.counters["c"] = 1
        let until = Instant(milliseconds: 2_000)
        cache.keep(answer(10), flagPosition: 0, for: key, served: served, context: context, computedAt: now, validUntil: until)
        #expect(cache.answer(for: key, served: served, context: context, now: now)?.body.count == 10)
        #expect(cache.answer(for: key, served: served, context: context, now: Instant(milliseconds: 1_999)) != nil)
        #expect(cache.answer(for: key, served: served, context: context, now: until) == nil)
        #expect(cache.answer(for: key, served: served, context: context, now: Instant(milliseconds: 999)) == nil)
        // An equal context in another box, as a write leaves it, is another context.
        var rewritten = context
        rewritten.counters["c"] = 1
        #expect(rewritten == context)
        #expect(cache.answer(for: key, served: served, context: rewritten, now: now) == nil)
        #expect(cache.answer(for: key, served: served, context: nil, now: now) == nil)
        let reloaded = RulesHost.Served(served.rules, ledger: EvaluationLedger())
        #expect(cache.answer(for: key, served: reloaded, context: context, now: now) == nil)
        // Erasing forgets the user's answers, every version of them.
        cache.keep(
            answer(10), flagPosition: 0, for: AnswerCache.Key(user: "v", flag: "f", appVersion: nil), served: served, context: nil,
            computedAt: now, validUntil: nil)
        cache.forget(user: "u")
        #expect(cache.count == 1)
        #expect(cache.answer(for: key, served: served, context: context, now: now) == nil)
        // Another version is another key.
        #expect(cache.answer(for: AnswerCache.Key(user: "u", flag: "f", appVersion: "1.0.0"), served: served, context: context, now: now) == nil)
    }
}

extension AnswerCache.Hit {
    /// The kept body, however it was handed out.
    var body: [UInt8] {
        switch kept {
        case .ok(let prepared): prepared.carriedBody ?? []
        case .answer(let answer): answer.body
        }
    }
}

extension AnswerCache.Lookup {
    var isHit: Bool { if case .hit = self { true } else { false } }
    var isCheckContext: Bool { if case .checkContext = self { true } else { false } }
    var isNone: Bool { if case .none = self { true } else { false } }
}
