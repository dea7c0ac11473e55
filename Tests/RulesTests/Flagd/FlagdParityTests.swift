import Rules
import Testing

/// One JSON Logic rule, its data and flagd's answer, with the flagd (or json-logic-js) rule the answer keeps.
struct ParityCase: CustomTestStringConvertible, Sendable {
    let rule: String
    let data: String
    let expected: String
    let keeps: String
    init(_ rule: String, _ expected: String, data: String = "{}", keeps: String) {
        self.rule = rule
        self.data = data
        self.expected = expected
        self.keeps = keeps
    }
    var testDescription: String { "\(rule) on \(data)" }
}

/// One flagd flag evaluated whole: the answer is the variant chosen, `default:<variant>`, or the error code.
struct FlagCase: CustomTestStringConvertible, Sendable {
    let targeting: String
    let context: String
    let expected: String
    let keeps: String
    var evaluators = "{}"
    var user = "u1"
    var testDescription: String { "\(targeting) on \(context)" }
}

/// The disagreements with flagd found by differential testing (random flag files × random contexts against an
/// independent flagd evaluator), one table per class. Where flagd's docs and testbed are silent, flagd's Go evaluator
/// is the reference; where it is silent too, json-logic-js.
@Suite struct FlagdParityTests {
    func logic(_ test: ParityCase) throws -> String {
        let parser = JSONParser()
        let result = JSONLogic(extensions: FlagdOperators.all).apply(try parser.parse(test.rule), try parser.parse(test.data))
        return JSONWriter.string(result)
    }

    func evaluate(_ test: FlagCase) throws -> String {
        let rules = try ruleSet(
            #"{"$evaluators": \#(test.evaluators), "flags": {"f": {"state": "ENABLED", "defaultVariant": "off", "#
                + #""variants": {"on": "ON", "off": "OFF", "1": "ONE", "2.5": "TWO_HALF", "true": "TRUE"}, "#
                + #""targeting": \#(test.targeting)}}}"#)
        guard case .object(let attributes) = try JSONParser().parse(test.context) else { return "bad context" }
        let user = context { for (name, value) in attributes { $0.attributes[name] = value } }
        let evaluation = rules.evaluate("f", input(user, user: test.user))
        if let code = evaluation.errorCode { return code.rawValue }
        let variant = evaluation.variant ?? "none"
        return evaluation.reason == .targetingMatch ? variant : "default:\(variant)"
    }

    // 1. Numbers from any caller never trap, and strings convert as JavaScript's Number() does.
    static let numbersFromCallers: [ParityCase] = [
        .init(
            #"{"fractional": ["k", ["a", {"var": "w"}], ["b", 1]]}"#, "null", data: #"{"w": 1e300}"#,
            keeps: "flagd fractional: a weight past 2^31-1 is invalid"),
        .init(
            #"{"fractional": ["k", ["a", {"var": "w"}], ["b", 1]]}"#, "null", data: #"{"w": "Infinity"}"#,
            keeps: "flagd fractional: a weight is a number"),
        .init(
            #"{"substr": ["jsonlogic", {"var": "p"}]}"#, #""""#, data: #"{"p": 1e300}"#,
            keeps: "json-logic-js substr: String.prototype.substr clamps"),
        .init(
            #"{"substr": ["jsonlogic", {"var": "p"}]}"#, #""jsonlogic""#, data: #"{"p": "inf"}"#,
            keeps: "json-logic-js substr: Number(\"inf\") is NaN, read as 0"),
        .init(#"{">": [{"var": "x"}, 5]}"#, "false", data: #"{"x": "inf"}"#, keeps: "json-logic-js >: Number(\"inf\") is NaN"),
        .init(#"{"<": [{"var": "x"}, 5]}"#, "false", data: #"{"x": "-inf"}"#, keeps: "json-logic-js <: Number(\"-inf\") is NaN"),
        .init(#"{">": [{"var": "x"}, 5]}"#, "true", data: #"{"x": "Infinity"}"#, keeps: "json-logic-js >: Number(\"Infinity\")")
    ]

    @Test(arguments: numbersFromCallers)
    func numbersFromCallers_neverTrap_andConvertAsJavaScript(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // 2. A `$ref` to a missing evaluator fails only when evaluation reaches it.
    static let missingEvaluators: [FlagCase] = [
        .init(
            targeting: #"{"if": [true, "on", {"$ref": "nowhere"}]}"#, context: "{}", expected: "on",
            keeps: "flagd evaluates targeting lazily: an untaken branch is never read"),
        .init(
            targeting: #"{"if": [{"$ref": "yes"}, "on", {"$ref": "nowhere"}]}"#, context: "{}", expected: "on",
            keeps: "flagd $evaluators: a $ref is replaced by its evaluator", evaluators: #"{"yes": {"==": [1, 1]}}"#),
        .init(
            targeting: #"{"if": [false, "on", {"$ref": "nowhere"}]}"#, context: "{}", expected: "PARSE_ERROR",
            keeps: "flagd: an unknown operation on the path taken is a parse error"),
        .init(
            targeting: #"{"or": [{"var": "x"}, {"no_such_operator": [1]}]}"#, context: #"{"x": "on"}"#, expected: "on",
            keeps: "json-logic-js or: stops at the first truthy value"),
        .init(
            targeting: #"{"or": [{"var": "x"}, {"no_such_operator": [1]}]}"#, context: "{}", expected: "PARSE_ERROR",
            keeps: "flagd: an unknown operation on the path taken is a parse error")
    ]

    @Test(arguments: missingEvaluators)
    func missingEvaluator_failsOnlyWhenReached(_ test: FlagCase) throws {
        #expect(try evaluate(test) == test.expected, "\(test.keeps)")
    }

    /// A targeting past its evaluation budget answers that flag's evaluation with `GENERAL`, where the daemon
    /// aborted on the allocation (flagd has no such bound; ours is docs/rules.md's).
    @Test func targetingPastItsBudget_isAGeneralError() throws {
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let doubling = #"{"reduce": [[\#(ones)], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "x"]}"#
        let test = FlagCase(
            targeting: #"{"if": [{"==": [\#(doubling), "never"]}, "on", "off"]}"#, context: "{}", expected: "GENERAL", keeps: "specd's budget")
        #expect(try evaluate(test) == "GENERAL")
        let cheap = FlagCase(targeting: #"{"if": [{"==": [{"cat": ["a", "b"]}, "ab"]}, "on", "off"]}"#, context: "{}", expected: "on", keeps: "")
        #expect(try evaluate(cheap) == "on")
    }

    // 3. The empty string is in every string.
    static let emptyNeedles: [ParityCase] = [
        .init(#"{"in": ["", "abc"]}"#, "true", keeps: "json-logic-js in: \"abc\".indexOf(\"\") is 0"),
        .init(#"{"in": ["", ""]}"#, "true", keeps: "json-logic-js in: \"\".indexOf(\"\") is 0"),
        .init(#"{"in": [{"var": "x"}, "abc"]}"#, "true", data: #"{"x": ""}"#, keeps: "json-logic-js in"),
        .init(#"{"in": ["d", "abc"]}"#, "false", keeps: "json-logic-js in")
    ]

    @Test(arguments: emptyNeedles)
    func in_emptyString_isFoundInEveryString(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // 4. NaN is a number that compares false, not null.
    static let notANumber: [ParityCase] = [
        .init(#"{"<": [{"+": [1, {"var": "x"}]}, 5]}"#, "false", data: #"{"x": "abc"}"#, keeps: "json-logic-js <: NaN < 5 is false"),
        .init(#"{">=": [{"*": [2, "x"]}, 0]}"#, "false", keeps: "json-logic-js >=: NaN >= 0 is false"),
        .init(#"{"==": [{"-": ["a"]}, null]}"#, "false", keeps: "json-logic-js ==: NaN == null is false"),
        .init(#"{"cat": [{"/": [0, 0]}, {"/": [1, 0]}]}"#, #""NaNInfinity""#, keeps: "json-logic-js cat: String(NaN)"),
        .init(#"{">": [{"/": [1, 0]}, 5]}"#, "true", keeps: "json-logic-js /: 1 / 0 is Infinity"),
        .init(#"{"<": [{"min": [1, "x"]}, 5]}"#, "false", keeps: "json-logic-js min: Math.min with NaN is NaN")
    ]

    @Test(arguments: notANumber)
    func nan_staysANumber_andComparesFalse(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    static let numberResults: [FlagCase] = [
        .init(
            targeting: #"{"min": [1, 2]}"#, context: "{}", expected: "1",
            keeps: "flagd: the targeting result is written as JSON and read as the variant name"),
        .init(
            targeting: #"{"+": [1, 1.5]}"#, context: "{}", expected: "2.5",
            keeps: "flagd: the targeting result is written as JSON and read as the variant name"),
        .init(
            targeting: #"{"max": [3, 4]}"#, context: "{}", expected: "GENERAL", keeps: "flagd: a result that names no variant is GENERAL"),
        .init(
            targeting: #"{"min": [1, "x"]}"#, context: "{}", expected: "PARSE_ERROR",
            keeps: "flagd: a NaN result has no JSON form, so its evaluator fails (parse error)")
    ]

    @Test(arguments: numberResults)
    func targetingNumberResult_namesAVariantOrFails(_ test: FlagCase) throws {
        #expect(try evaluate(test) == test.expected, "\(test.keeps)")
    }

    // 5. Leading zeros make a version invalid (semver.org §2, §9).
    static let versions: [ParityCase] = [
        .init(#"{"sem_ver": ["01.2.3", "=", "1.2.3"]}"#, "null", keeps: "flagd sem_ver: semver.org §2, no leading zeros"),
        .init(#"{"sem_ver": ["1.02.3", ">", "1.0.0"]}"#, "null", keeps: "flagd sem_ver: semver.org §2, no leading zeros"),
        .init(#"{"sem_ver": ["1.2.3-01", "<", "1.2.3"]}"#, "null", keeps: "flagd sem_ver: semver.org §9, numeric identifiers"),
        .init(#"{"sem_ver": ["1.2.3-0a", "<", "1.2.3"]}"#, "true", keeps: "flagd sem_ver: alphanumeric identifiers may start with 0"),
        .init(#"{"sem_ver": ["1.2.3-10", "<", "1.2.3--x"]}"#, "true", keeps: "flagd sem_ver: semver.org §11, numeric below alphanumeric"),
        .init(#"{"sem_ver": ["1-beta", "=", "1.0.0-beta"]}"#, "null", keeps: "flagd sem_ver: short forms take no pre-release"),
        .init(#"{"sem_ver": ["1.2.3-a_b", "=", "1.2.3"]}"#, "null", keeps: "flagd sem_ver: semver.org §9, identifier characters"),
        .init(#"{"sem_ver": ["v1.2", "=", "1.2.0"]}"#, "true", keeps: "flagd sem_ver: a leading v and short forms")
    ]

    @Test(arguments: versions)
    func semVer_invalidVersions_yieldNull(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // 6. A bucketing value that evaluates to an array is the first distribution; null is skipped.
    static let bucketingValues: [FlagCase] = [
        .init(
            targeting: #"{"fractional": [{"var": "d"}, ["on", 0]]}"#, context: #"{"d": ["on", 1]}"#, expected: "on",
            keeps: "flagd fractional: arguments are evaluated, an array first argument is a distribution"),
        .init(
            targeting: #"{"fractional": [{"var": "missing"}, ["on", 1]]}"#, context: "{}", expected: "on",
            keeps: "flagd fractional: a null bucketing value falls back to the targeting key"),
        .init(
            targeting: #"{"fractional": [{"var": "n"}, ["on", 1]]}"#, context: #"{"n": 5}"#, expected: "default:off",
            keeps: "flagd fractional: a distribution is an array")
    ]

    @Test(arguments: bucketingValues)
    func fractional_bucketingValue_isReadAfterEvaluation(_ test: FlagCase) throws {
        #expect(try evaluate(test) == test.expected, "\(test.keeps)")
    }

    // 7. Weights are whole numbers.
    static let weights: [ParityCase] = [
        .init(#"{"fractional": ["k", ["a", "10"], ["b", 1]]}"#, "null", keeps: "flagd fractional: a weight is a number"),
        .init(#"{"fractional": ["k", ["a", 2.5], ["b", 1]]}"#, "null", keeps: "flagd fractional: weights must be integers"),
        .init(#"{"fractional": ["k", ["a", true], ["b", 1]]}"#, "null", keeps: "flagd fractional: a weight is a number"),
        .init(#"{"fractional": ["k", ["a", 2147483648]]}"#, "null", keeps: "flagd fractional: a weight is at most 2^31-1"),
        .init(
            #"{"fractional": ["k", ["a", 2147483647], ["b", 1]]}"#, "null", keeps: "flagd fractional: the weights sum to at most 2^31-1"),
        .init(#"{"fractional": ["k", ["a", 2.0]]}"#, #""a""#, keeps: "flagd fractional: 2.0 is a whole number"),
        .init(#"{"fractional": ["k", ["a", null]]}"#, #""a""#, keeps: "flagd fractional: a null weight counts as 1"),
        .init(#"{"fractional": ["k", [["a"], 1]]}"#, "null", keeps: "flagd fractional: a variant is a string, bool, number or null")
    ]

    @Test(arguments: weights)
    func fractional_weightsThatAreNotWholeNumbers_yieldNull(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // 8. The targeting key is passed through as sent.
    static let targetingKeys: [FlagCase] = [
        .init(
            targeting: #"{"if": [{"==": [{"var": "targetingKey"}, ""]}, "on", "off"]}"#, context: #"{"targetingKey": ""}"#,
            expected: "on", keeps: "flagd: the evaluation context reaches targeting unchanged", user: ""),
        .init(
            targeting: #"{"if": [{"==": [{"var": "targetingKey"}, null]}, "on", "off"]}"#, context: "{}", expected: "on",
            keeps: "flagd: no targeting key, no targetingKey in the data", user: ""),
        .init(
            targeting: #"{"if": [{"==": [{"var": "targetingKey"}, "u1"]}, "on", "off"]}"#, context: "{}", expected: "on",
            keeps: "flagd: the targeting key is in the data")
    ]

    @Test(arguments: targetingKeys)
    func targetingKey_empty_staysEmptyString(_ test: FlagCase) throws {
        #expect(try evaluate(test) == test.expected, "\(test.keeps)")
    }

    // 9. Strings compare by code points, never by canonical equivalence.
    static let codePoints: [ParityCase] = [
        .init(#"{"==": ["Jose\u0301", "José"]}"#, "false", keeps: "json-logic-js ==: strings equal by code units"),
        .init(#"{"===": ["Jose\u0301", "José"]}"#, "false", keeps: "json-logic-js ===: strings equal by code units"),
        .init(#"{"!=": ["Jose\u0301", "José"]}"#, "true", keeps: "json-logic-js !=: strings equal by code units"),
        .init(#"{"in": ["José", "I am Jose\u0301"]}"#, "false", keeps: "json-logic-js in: indexOf by code units"),
        .init(#"{"in": ["José", ["Jose\u0301"]]}"#, "false", keeps: "json-logic-js in: indexOf uses ==="),
        .init(#"{"starts_with": ["Jose\u0301 A", "José"]}"#, "false", keeps: "flagd starts_with: strings.HasPrefix, bytes"),
        .init(#"{"ends_with": ["A Jose\u0301", "José"]}"#, "false", keeps: "flagd ends_with: strings.HasSuffix, bytes"),
        .init(#"{"<=": ["Jose\u0301", "José"]}"#, "true", keeps: "flagd <=: strings order by bytes (e < é)"),
        .init(#"{">": ["Jose\u0301", "José"]}"#, "false", keeps: "flagd >: strings order by bytes (e < é)"),
        .init(#"{"substr": ["e\u0301x", 1]}"#, "\"\u{301}x\"", keeps: "flagd substr: slices runes, not graphemes")
    ]

    @Test(arguments: codePoints)
    func strings_compareByCodePoints(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // 10. A key present with value null is absent for `var`'s default.
    static let nullKeys: [ParityCase] = [
        .init(#"{"var": ["plan", "true"]}"#, #""true""#, data: #"{"plan": null}"#, keeps: "flagd var: a null value takes the default"),
        .init(#"{"var": ["a.b", 7]}"#, "7", data: #"{"a": null}"#, keeps: "json-logic-js var: a null on the path takes the default"),
        .init(#"{"var": ["a.b", 7]}"#, "7", data: #"{"a": {"b": null}}"#, keeps: "flagd var: a null value takes the default"),
        .init(#"{"var": ["plan", "true"]}"#, "false", data: #"{"plan": false}"#, keeps: "flagd var: false is a value")
    ]

    @Test(arguments: nullKeys)
    func var_keyPresentWithNull_takesDefault(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }

    // Found by the differential test: relational operators convert arrays and objects to strings first.
    static let relational: [ParityCase] = [
        .init(#"{">": ["-1", []]}"#, "true", keeps: "json-logic-js >: ToPrimitive([]) is \"\", then strings compare"),
        .init(#"{"<=": [[], "1_0"]}"#, "true", keeps: "json-logic-js <=: \"\" <= \"1_0\" as strings"),
        .init(#"{"<": [[1, 2], "1,3"]}"#, "true", keeps: "json-logic-js <: \"1,2\" < \"1,3\" as strings"),
        .init(#"{"<": [[2], 10]}"#, "true", keeps: "json-logic-js <: \"2\" against a number compares numbers"),
        .init(
            #"{">": [{"var": "o"}, "[object Array]"]}"#, "true", data: #"{"o": {"a": 1}}"#, keeps: "json-logic-js >: an object is \"[object Object]\""
        )
    ]

    @Test(arguments: relational)
    func relational_arraysAndObjects_compareAsTheirStrings(_ test: ParityCase) throws {
        #expect(try logic(test) == test.expected, "\(test.keeps)")
    }
}
