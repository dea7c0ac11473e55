import Rules
import Testing

/// Numbers from rule files and contexts reach integer code: none of them may trap. Bad input gives `null` (so a flagd
/// flag falls back to its default variant), a clamp that matches JavaScript, or a validation error.
@Suite struct NumericSafetyTests {
    func logic(_ rule: String, _ data: String = "{}") throws -> String {
        let parser = JSONParser()
        return JSONWriter.string(JSONLogic(extensions: FlagdOperators.all).apply(try parser.parse(rule), try parser.parse(data)))
    }

    /// JavaScript's `String.prototype.substr` clamps any position, infinite or huge, to the string.
    @Test(arguments: [
        (#"{"substr": ["jsonlogic", 1e300]}"#, #""""#),
        (#"{"substr": ["jsonlogic", -1e300]}"#, #""jsonlogic""#),
        (#"{"substr": ["jsonlogic", 1e19]}"#, #""""#),
        (#"{"substr": ["jsonlogic", 0, 1e300]}"#, #""jsonlogic""#),
        (#"{"substr": ["jsonlogic", 0, -1e300]}"#, #""""#),
        (#"{"substr": ["jsonlogic", 2, 9223372036854775807]}"#, #""onlogic""#),
        (#"{"substr": ["jsonlogic", "Infinity"]}"#, #""""#),
        (#"{"substr": ["jsonlogic", "-Infinity"]}"#, #""jsonlogic""#),
        (#"{"substr": ["jsonlogic", 1, "Infinity"]}"#, #""sonlogic""#),
        (#"{"substr": ["jsonlogic", 1, "-Infinity"]}"#, #""""#),
        (#"{"substr": ["jsonlogic", "inf"]}"#, #""jsonlogic""#),
        (#"{"substr": ["jsonlogic", 1, "nan"]}"#, #""""#)
    ])
    func substr_withHugeOrInfinitePositions_clampsLikeJavaScript(rule: String, expected: String) throws {
        #expect(try logic(rule) == expected)
    }

    @Test func substr_offsetFromData_1e19_clamps() throws {
        #expect(try logic(#"{"substr": [{"var": "email"}, {"var": "offset"}]}"#, #"{"email": "a@b.c", "offset": 1e19}"#) == #""""#)
    }

    /// Weights that cannot be summed as integers make `fractional` answer null (flagd: the default variant).
    @Test(arguments: [
        #"{"fractional": ["key", ["a", 9223372036854775807], ["b", 9223372036854775807]]}"#,
        #"{"fractional": ["key", ["a", 1e300], ["b", 1]]}"#,
        #"{"fractional": ["key", ["a", "Infinity"], ["b", 1]]}"#,
        #"{"fractional": ["key", ["a", 1], ["b", {"var": "w"}]]}"#
    ])
    func fractional_withWeightsPastInt64_yieldsNull(rule: String) throws {
        #expect(try logic(rule, #"{"w": 1e19}"#) == "null")
    }

    /// flagd caps one weight and the sum at 2^31-1 (its fractional specification): larger ones answer null.
    @Test func fractional_withWeightsPastInt32_yieldsNull_andAtTheCapStillPicks() throws {
        #expect(try logic(#"{"fractional": ["key", ["a", 4000000000000000000], ["b", 4000000000000000000]]}"#) == "null")
        let answer = try logic(#"{"fractional": ["key", ["a", 1073741823], ["b", 1073741824]]}"#)
        #expect(answer == #""a""# || answer == #""b""#)
    }

    @Test(arguments: [
        (#"{"missing_some": [1e300, ["a"]]}"#, #"["a"]"#),
        (#"{"missing_some": [-1e300, ["a"]]}"#, "[]"),
        (#"{"missing_some": ["Infinity", ["a"]]}"#, #"["a"]"#)
    ])
    func missingSome_withHugeNeeded_doesNotTrap(rule: String, expected: String) throws {
        #expect(try logic(rule) == expected)
    }

    /// JavaScript prints integral numbers below 1e21 in full; Int64 holds only those below 2^63.
    @Test(arguments: [
        (#"{"cat": [1e20]}"#, #""100000000000000000000""#),
        (#"{"cat": [-1e20]}"#, #""-100000000000000000000""#),
        // The double nearest 2^63-1 is 2^63; JavaScript prints its shortest round-trip digits, then zeros.
        (#"{"cat": [9223372036854775807]}"#, #""9223372036854776000""#),
        (#"{"cat": [1e19]}"#, #""10000000000000000000""#)
    ])
    func numberToString_pastInt64_printsLikeJavaScript(rule: String, expected: String) throws {
        #expect(try logic(rule) == expected)
    }

    /// `Number("inf")` is NaN in JavaScript (only `Infinity` is spelled out), so no comparison with it holds.
    @Test(arguments: [
        (#"{">": ["inf", 5]}"#, "false"),
        (#"{"<": ["-inf", 5]}"#, "false"),
        (#"{">": ["nan", 5]}"#, "false"),
        (#"{">": ["Infinity", 5]}"#, "true"),
        (#"{"<": ["-Infinity", 5]}"#, "true"),
        (#"{"+": ["0x10", 1]}"#, "17"),
        (#"{"+": ["0x1p3", 1]}"#, "null"),
        (#"{"+": [" 12 ", 1]}"#, "13"),
        (#"{"+": ["1e3", 1]}"#, "1001"),
        (#"{"+": [".5", 1]}"#, "1.5"),
        (#"{"+": ["5.", 1]}"#, "6"),
        (#"{"+": ["1_000", 1]}"#, "null")
    ])
    func stringToNumber_followsJavaScript(rule: String, expected: String) throws {
        #expect(try logic(rule) == expected)
    }

    /// A flagd flag reading a huge offset from the context: the evaluation completes with the default variant.
    @Test func flagdFlag_substrOfContextOffset1e19_fallsBackInsteadOfTrapping() throws {
        let set = try ruleSet(
            #"""
            {"flags": {"domain": {"state": "ENABLED", "variants": {"short": "short", "long": "long"}, "defaultVariant": "short",
              "targeting": {"if": [{"==": [{"substr": [{"var": "email"}, {"var": "offset"}]}, "example.com"]}, "long", null]}},
              "split": {"state": "ENABLED", "variants": {"a": "a", "b": "b"}, "defaultVariant": "a",
              "targeting": {"fractional": [{"var": "email"}, ["a", {"var": "offset"}], ["b", 1]]}}}}
            """#)
        let user = context {
            $0.attributes["email"] = "someone@example.com"
            $0.attributes["offset"] = .number(JSONNumber(1e19))
        }
        #expect(set.evaluate("domain", input(user)).value == "short")
        #expect(set.evaluate("split", input(user)).value == "a")
        #expect(set.evaluate("split", input(user)).reason == .defaultValue)
    }

    /// Durations past 1e12 seconds (about 31 700 years) are refused, written as text or as a number.
    @Test(arguments: ["\"15000000000w\"", "\"1000000000000s\"", "\"16666666667m\"", "1e12", "1e300"])
    func duration_beyondBound_isRefusedAtValidation(duration: String) throws {
        let found = try diagnostics(#"{"flags": {"f": {"when": {"cooldown": {"event": "e", "for": \#(duration)}}}}}"#)
        #expect(found.contains { $0.code == "invalid_duration" })
    }

    @Test func throttle_withHugeCount_isRefusedAtValidation() throws {
        let found = try diagnostics(#"{"flags": {}, "triggers": {"t": {"on": ["e"], "throttle": "9223372036854775807 weeks"}}}"#)
        #expect(found.contains { $0.code == "invalid_period" })
    }

    /// The fuzz crash `Crashes/evaluation/throttle-months-int64-trap.json`: a calendar throttle whose count fits an
    /// `Int64` but whose months do not fit a date, in every calendar unit and with no `on` list.
    @Test(arguments: ["99999999999 months", "99999999999 quarters", "10001 years", "10001 months", "10001 hours"])
    func throttle_withCalendarCountPastTheBound_isRefusedAtValidation(throttle: String) throws {
        let found = try diagnostics(#"{"flags": {"f": {"when": {"always": true}}}, "triggers": {"t": {"throttle": "\#(throttle)"}}}"#)
        #expect(found.contains { $0.code == "invalid_period" })
    }

    /// At the bound (`CalendarPeriod.maxCount`) the throttle compiles, and adding it to a fire stays exact: it ends
    /// on the calendar date the period names (12:00 UTC, from t0 = 2026-03-10T12:00Z), not at "never".
    @Test(
        arguments: zip(
            ["10000 years", "10000 quarters", "10000 months", "10000 weeks"],
            // 12026-03-10, 4526-03-10, 2859-07-10, and t0 + 70 000 days.
            [317_342_664_000_000, 80_665_502_400_000, 28_070_625_600_000, 7_821_144_000_000] as [Int64]))
    func throttle_atTheBound_compilesAndEndsOnItsDate(throttle: String, end: Int64) throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"t": {"throttle": "\#(throttle)"}}}"#)
        let trigger = try #require(set.triggers["t"])
        let fired = context { $0.triggerFires["t"] = t0 }
        #expect(trigger.isThrottled(fired, now: t0 + 1))
        #expect(trigger.isThrottled(fired, now: Instant(milliseconds: end - 1)))
        #expect(!trigger.isThrottled(fired, now: Instant(milliseconds: end)))
    }

    @Test func splitWeights_summingPastInt64_areRefusedAtValidation() throws {
        let found = try diagnostics(
            #"""
            {"flags": {"f": {"cases": [{"when": {"always": true}, "split": [{"weight": 9223372036854775807, "value": "a"},
                                                                             {"weight": 9223372036854775807, "value": "b"}]}]}}}
            """#)
        #expect(found.contains { $0.code == "weight_overflow" })
    }

    @Test func bucketingPick_withWeightsPastInt64_doesNotTrap() {
        let index = Bucketing.pick("user", weights: [.max, .max, 1])
        #expect((0..<3).contains(index))
    }

    /// Instants far in the future or past, plus or minus any duration, saturate instead of trapping.
    @Test func instantArithmetic_saturates() {
        let latest = Instant(milliseconds: .max)
        let earliest = Instant(milliseconds: .min)
        #expect(latest + 1 == latest)
        #expect(earliest - 1 == earliest)
        #expect(earliest + (-5) == earliest)
        #expect(latest - earliest == .max)
        #expect(earliest - latest == .min)
        #expect(Instant(milliseconds: 10) + 5 == Instant(milliseconds: 15))
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -1, Int64.max])
    func iso8601Format_ofExtremeInstants_doesNotTrap(milliseconds: Int64) {
        #expect(!ISO8601.format(Instant(milliseconds: milliseconds)).isEmpty)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300])
    func instantFromSeconds_outOfRange_saturates(seconds: Double) {
        let instant = Instant(seconds: seconds)
        #expect(instant.milliseconds == (seconds.isNaN ? 0 : (seconds > 0 ? .max : .min)))
    }

    /// A stored event far in the future and a cooldown: next change and explain complete.
    @Test func cooldown_withExtremeEventInstant_evaluatesAndExplains() throws {
        let set = try ruleSet(#"{"flags": {"f": {"when": {"cooldown": {"event": "e", "for": "52w"}}}}}"#)
        for extreme in [Int64.max, Int64.min] {
            let user = context { $0.events["e"] = Instant(milliseconds: extreme) }
            _ = set.evaluate("f", input(user))
            _ = set.nextChange("f", input(user))
            _ = set.flags["f"]!.explain(input(user))
        }
    }

    @Test func donationWindow_withExtremeHistory_countsWithoutTrapping() throws {
        let set = try ruleSet(#"{"flags": {"f": {"when": {"donations": {"event": "e", "gte": 1, "within": "1d"}}}}}"#)
        let user = context {
            $0.donations["e"] = DonationSummary(
                count: 2, last: .init(at: Instant(milliseconds: .max), appVersion: nil),
                recent: [Instant(milliseconds: .min), Instant(milliseconds: .max)])
        }
        _ = set.evaluate("f", input(user))
        _ = set.nextChange("f", input(user))
    }
}
