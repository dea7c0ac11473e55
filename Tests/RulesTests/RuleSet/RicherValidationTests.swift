import Rules
import Testing

/// Each bad richer node: the code and the JSON pointer of the field at fault.
@Suite struct RicherValidationTests {
    static func flag(_ when: String) -> String { #"{"flags": {"f": {"when": \#(when)}}}"# }

    static let cases: [ValidationCase] = [
        .init(
            code: "invalid_factor", path: "/flags/f/when/cooldown/backoff/factor",
            rules: flag(#"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": 0.5}}}"#)),
        .init(
            code: "wrong_type", path: "/flags/f/when/cooldown/backoff/factor",
            rules: flag(#"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": "2"}}}"#)),
        .init(
            code: "invalid_range", path: "/flags/f/when/cooldown/backoff/max",
            rules: flag(#"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": 2, "max": "30m"}}}"#)),
        .init(
            code: "missing_field", path: "/flags/f/when/cooldown/backoff/counter",
            rules: flag(#"{"cooldown": {"event": "e", "for": "1h", "backoff": {"factor": 2}}}"#)),
        .init(
            code: "unknown_field", path: "/flags/f/when/cooldown/day",
            rules: flag(#"{"cooldown": {"event": "e", "for": "1h", "day": "1h", "backoff": {"counter": "n", "factor": 2}}}"#)),
        .init(
            code: "hour_out_of_range", path: "/flags/f/when/cooldown/nightHours/0",
            rules: flag(#"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [24, 7]}}"#)),
        .init(
            code: "hour_out_of_range", path: "/flags/f/when/cooldown/nightHours/1",
            rules: flag(#"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [22, -1]}}"#)),
        .init(
            code: "missing_field", path: "/flags/f/when/cooldown/nightHours",
            rules: flag(#"{"cooldown": {"event": "e", "day": "1h", "night": "8h"}}"#)),
        .init(
            code: "invalid_timezone", path: "/flags/f/when/tz",
            rules: flag(#"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [22, 7]}, "tz": "Mars/Base"}"#)),
        .init(code: "unknown_field", path: "/flags/f/when/tz", rules: flag(#"{"cooldown": {"event": "e", "for": "1h"}, "tz": "UTC"}"#)),
        .init(code: "missing_field", path: "/flags/f/when/sinceLaunch", rules: flag(#"{"sinceLaunch": {}}"#)),
        .init(code: "multiple_operators", path: "/flags/f/when/sinceLaunch", rules: flag(#"{"sinceLaunch": {"gt": "1s", "lt": "2s"}}"#)),
        .init(code: "unknown_field", path: "/flags/f/when/sinceLaunch/eq", rules: flag(#"{"sinceLaunch": {"eq": "1s"}}"#)),
        .init(code: "invalid_duration", path: "/flags/f/when/sinceLaunch/gt", rules: flag(#"{"sinceLaunch": {"gt": "soon"}}"#)),
        .init(code: "invalid_range", path: "/flags/f/when/attr/between", rules: flag(#"{"attr": {"key": "s", "between": [5, 1]}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/attr/between", rules: flag(#"{"attr": {"key": "s", "between": [1, "9"]}}"#)),
        .init(code: "negative_tolerance", path: "/flags/f/when/attr/tolerance", rules: flag(#"{"attr": {"key": "s", "eq": 1, "tolerance": -1}}"#)),
        .init(code: "unknown_field", path: "/flags/f/when/attr/tolerance", rules: flag(#"{"attr": {"key": "s", "gt": 1, "tolerance": 1}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/attr/eq", rules: flag(#"{"attr": {"key": "s", "eq": "x", "tolerance": 1}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/attr/gt", rules: flag(#"{"attr": {"key": "s", "gt": {"$attr": 3}}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/attr/in", rules: flag(#"{"attr": {"key": "s", "in": {"$attr": "k"}}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/counter/gt", rules: flag(#"{"counter": {"key": "c", "gt": {"$size": "k", "$attr": "j"}}}"#)),
        .init(code: "wrong_type", path: "/flags/f/when/counter/between", rules: flag(#"{"counter": {"key": "c", "between": {"$counter": "k"}}}"#)),
        .init(
            code: "window_shorter_than_period", path: "/flags/f/when/history/over",
            rules: flag(#"{"history": {"event": "e", "over": "12h", "per": "day", "stat": "mean", "gte": 1}}"#)),
        .init(
            code: "too_many_periods", path: "/flags/f/when/history/over",
            rules: flag(#"{"history": {"event": "e", "over": "365d", "per": "hour", "stat": "mean", "gte": 1}}"#)),
        .init(
            code: "invalid_period", path: "/flags/f/when/history/per",
            rules: flag(#"{"history": {"event": "e", "over": "30d", "per": "2 days", "stat": "mean", "gte": 1}}"#)),
        .init(
            code: "invalid_statistic", path: "/flags/f/when/history/stat",
            rules: flag(#"{"history": {"event": "e", "over": "30d", "per": "day", "stat": "mode", "gte": 1}}"#)),
        .init(
            code: "missing_field", path: "/flags/f/when/history",
            rules: flag(#"{"history": {"event": "e", "over": "30d", "per": "day", "stat": "max"}}"#)),
        .init(
            code: "missing_field", path: "/flags/f/when/history/per",
            rules: flag(#"{"history": {"event": "e", "over": "30d", "stat": "max", "gt": 1}}"#)),
        .init(
            code: "non_positive_weight", path: "/flags/f/cases/1/weight",
            rules:
                #"{"flags": {"f": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "value": 1}, {"when": {"always": true}, "weight": 0, "value": 2}]}}}"#
        ),
        .init(
            code: "non_positive_weight", path: "/flags/f/cases/0/weight",
            rules: #"{"flags": {"f": {"pick": "weighted", "cases": [{"when": {"always": true}, "value": 1}]}}}"#),
        .init(
            code: "invalid_pick", path: "/flags/f/pick",
            rules: #"{"flags": {"f": {"pick": "random", "cases": [{"when": {"always": true}, "weight": 1, "value": 1}]}}}"#),
        .init(code: "empty_combinator", path: "/flags/f/cases", rules: #"{"flags": {"f": {"pick": "weighted", "cases": []}}}"#),
        .init(
            code: "unknown_field", path: "/flags/f/cases/0/split",
            rules:
                #"{"flags": {"f": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "split": [{"weight": 1, "value": 1}]}]}}}"#),
        .init(
            code: "mixed_value_types", path: "/flags/f/cases/1/value",
            rules:
                #"{"flags": {"f": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "value": 1}, {"when": {"always": true}, "weight": 1, "value": "x"}]}}}"#
        ),
        .init(
            code: "unknown_field", path: "/flags/f/pick", rules: #"{"flags": {"f": {"when": {"always": true}, "pick": "weighted"}}}"#),
        .init(
            code: "weight_overflow", path: "/flags/f/cases",
            rules:
                #"{"flags": {"f": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 9223372036854775807, "value": 1}, {"when": {"always": true}, "weight": 1, "value": 2}]}}}"#
        )
    ]

    @Test(arguments: cases) func richerNode_reportsCodeAtPath(_ validation: ValidationCase) throws {
        let found = try diagnostics(validation.rules)
        #expect(
            found.contains { $0.code == validation.code && $0.path == validation.path },
            "\(found.map(\.description))")
    }

    @Test(arguments: [
        #"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": 1.5}}}"#,
        #"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [0, 23]}, "tz": "Europe/Paris"}"#,
        #"{"sinceLaunch": {"lte": 30}}"#, #"{"attr": {"key": "s", "between": [1e-300, 1e300]}}"#,
        #"{"attr": {"key": "s", "gte": {"$counter": "k"}}}"#, #"{"counter": {"key": "c", "ne": {"$attr": "k"}}}"#,
        #"{"history": {"event": "e", "over": "52w", "per": "week", "stat": "p90", "lt": 2.5}}"#
    ])
    func richerNode_valid(_ when: String) throws {
        #expect(try diagnostics(Self.flag(when)).isEmpty)
    }
}
