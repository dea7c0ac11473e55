import Rules
import Testing

/// One JSON Logic evaluation spends a bounded budget (docs/rules.md, "flagd definitions and JSON Logic"): valid
/// rules that ask for exponential memory or time end as an error of that one evaluation, not of the process.
@Suite struct EvaluationBudgetTests {
    let logic = JSONLogic(extensions: FlagdOperators.all)

    func evaluate(_ rule: String, data: String = "{}") throws -> Result<JSONValue, JSONLogic.Failure> {
        let parser = JSONParser()
        let rule = try parser.parse(rule), data = try parser.parse(data)
        return Result { () throws(JSONLogic.Failure) in try logic.evaluate(rule, data) }
    }

    /// `reduce` doubling a string with `cat` forty times asked for 2^40 bytes: the daemon aborted on a failed
    /// allocation at the first flag read.
    @Test func reduceDoublingAString_stopsAtTheValueBound() throws {
        let ones = Array(repeating: "1", count: 40).joined(separator: ",")
        let rule = #"{"reduce": [[\#(ones)], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "x"]}"#
        #expect(try evaluate(rule) == .failure(.overBudget))
    }

    /// Three nested `some` over 1 000 items were 10^9 evaluations: past 20 s for one flag.
    @Test func nestedIterations_stopAtTheStepBound() throws {
        let items = "[" + (0..<1000).map(String.init).joined(separator: ",") + "]"
        let rule = #"{"some": [\#(items), {"some": [\#(items), {"some": [\#(items), false]}]}]}"#
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try evaluate(rule) == .failure(.overBudget))
        // Not a timing test of the budget's size: only that it ended, where the unbounded walk took minutes.
        #expect(clock.now - started < .seconds(30))
    }

    /// `merge` doubling an array grows it past the element bound.
    @Test func mergeDoublingAnArray_stopsAtTheElementBound() throws {
        let ones = Array(repeating: "1", count: 20).joined(separator: ",")
        let rule = #"{"reduce": [[\#(ones)], {"merge": [{"var": "accumulator"}, {"var": "accumulator"}]}, [1]]}"#
        #expect(try evaluate(rule) == .failure(.overBudget))
    }

    /// A byte search of a long needle in a long haystack is charged for its worst case before it runs.
    @Test func substringSearchOfLongStrings_isChargedItsWorstCase() throws {
        let hay = String(repeating: "a", count: 16_000)
        let needle = String(repeating: "a", count: 8_000) + "b"
        #expect(try evaluate(#"{"in": [{"var": "n"}, {"var": "h"}]}"#, data: #"{"h": "\#(hay)", "n": "\#(needle)"}"#) == .failure(.overBudget))
        #expect(try evaluate(#"{"in": ["ab", {"var": "h"}]}"#, data: #"{"h": "\#(hay)b"}"#) == .success(true))
    }

    /// Just inside the bounds, rules still answer: a string of exactly `maxValueBytes` and an array of
    /// `maxElements`.
    @Test func valuesAtTheBounds_areAnswered() throws {
        let doublings = Array(repeating: "1", count: 14).joined(separator: ",")
        let string = #"{"reduce": [[\#(doublings)], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "x"]}"#
        guard case .success(.string(let text)) = try evaluate(string) else {
            Issue.record("no string")
            return
        }
        #expect(text.utf8.count == JSONLogic.maxValueBytes)
        let items = "[" + (0..<JSONLogic.maxElements).map(String.init).joined(separator: ",") + "]"
        guard case .success(.array(let mapped)) = try evaluate(#"{"map": [\#(items), {"+": [{"var": ""}, 1]}]}"#) else {
            Issue.record("no array")
            return
        }
        #expect(mapped.count == JSONLogic.maxElements)
    }

    /// Extensions evaluate their arguments through the same budget: `fractional` over an iteration past the bound
    /// does not start a fresh one.
    @Test func extensionsSpendTheEvaluationsBudget() throws {
        let items = "[" + (0..<1000).map(String.init).joined(separator: ",") + "]"
        let rule = #"{"starts_with": [{"some": [\#(items), {"some": [\#(items), false]}]}, "t"]}"#
        #expect(try evaluate(rule) == .failure(.overBudget))
    }
}
