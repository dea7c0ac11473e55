import Rules
import Testing

struct ValidationCase: CustomTestStringConvertible, Sendable {
    let code: String
    let path: String
    let rules: String
    var testDescription: String { "\(code) at \(path)" }
}

let validationCases: [ValidationCase] = [
    .init(code: "unknown_operator", path: "/flags/f/when/sometimes", rules: #"{"flags": {"f": {"when": {"sometimes": true}}}}"#),
    .init(
        code: "unknown_field", path: "/flags/f/when/maxCount/max",
        rules: #"{"flags": {"f": {"when": {"maxCount": {"counter": "c", "limit": 1, "max": 2}}}}}"#),
    .init(code: "unknown_field", path: "/flags/f/colour", rules: #"{"flags": {"f": {"when": {"always": true}, "colour": 1}}}"#),
    .init(code: "unknown_field", path: "/flagz", rules: #"{"flagz": {}}"#),
    .init(code: "wrong_type", path: "/flags/f/when/all/0", rules: #"{"flags": {"f": {"when": {"all": [true]}}}}"#),
    .init(code: "wrong_type", path: "/flags/f/when/counter/gte", rules: #"{"flags": {"f": {"when": {"counter": {"key": "k", "gte": "3"}}}}}"#),
    .init(code: "empty_combinator", path: "/flags/f/when/any", rules: #"{"flags": {"f": {"when": {"any": []}}}}"#),
    .init(code: "unknown_ref", path: "/flags/f/when/ref", rules: #"{"flags": {"f": {"when": {"ref": "ghost"}}}}"#),
    .init(code: "cycle", path: "/specs/b/ref", rules: #"{"specs": {"a": {"ref": "b"}, "b": {"ref": "a"}}, "flags": {"f": {"when": {"ref": "a"}}}}"#),
    .init(
        code: "invalid_range", path: "/flags/f/when/dateRange",
        rules: #"{"flags": {"f": {"when": {"dateRange": {"from": "2026-02-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"}}}}}"#),
    .init(
        code: "invalid_range", path: "/flags/f/when/counter/between",
        rules: #"{"flags": {"f": {"when": {"counter": {"key": "k", "between": [5, 1]}}}}}"#),
    .init(
        code: "negative_limit", path: "/flags/f/when/maxCount/limit",
        rules: #"{"flags": {"f": {"when": {"maxCount": {"counter": "c", "limit": -1}}}}}"#),
    .init(code: "hour_out_of_range", path: "/flags/f/when/hourIn/1", rules: #"{"flags": {"f": {"when": {"hourIn": [9, 24]}}}}"#),
    .init(code: "weekday_out_of_range", path: "/flags/f/when/weekday/0", rules: #"{"flags": {"f": {"when": {"weekday": [0]}}}}"#),
    .init(
        code: "mixed_value_types", path: "/flags/f/fallback",
        rules: #"{"flags": {"f": {"cases": [{"when": {"always": true}, "value": 1}], "fallback": "none"}}}"#),
    .init(
        code: "unknown_default_variant", path: "/flags/f/defaultVariant", rules: #"{"flags": {"f": {"variants": {"a": 1}, "defaultVariant": "b"}}}"#),
    .init(
        code: "unknown_variant", path: "/flags/f/cases/0/variant",
        rules: #"{"flags": {"f": {"variants": {"a": 1}, "defaultVariant": "a", "cases": [{"when": {"always": true}, "variant": "z"}]}}}"#),
    .init(
        code: "non_positive_weight", path: "/flags/f/cases/0/split/1/weight",
        rules: #"{"flags": {"f": {"cases": [{"when": {"always": true}, "split": [{"weight": 1, "value": "a"}, {"weight": 0, "value": "b"}]}]}}}"#),
    .init(
        code: "invalid_duration", path: "/flags/f/when/cooldown/for",
        rules: #"{"flags": {"f": {"when": {"cooldown": {"event": "e", "for": "3 days"}}}}}"#),
    .init(code: "invalid_period", path: "/triggers/t/throttle", rules: #"{"flags": {}, "triggers": {"t": {"throttle": "fortnight"}}}"#),
    .init(code: "invalid_timezone", path: "/flags/f/when/tz", rules: #"{"flags": {"f": {"when": {"hourIn": [9, 17], "tz": "Mars/Olympus"}}}}"#),
    .init(code: "invalid_date", path: "/flags/f/when/dateRange/from", rules: #"{"flags": {"f": {"when": {"dateRange": {"from": "yesterday"}}}}}"#),
    .init(code: "invalid_version", path: "/flags/f/when/appVersion/gte", rules: #"{"flags": {"f": {"when": {"appVersion": {"gte": "v2"}}}}}"#),
    .init(code: "invalid_percent", path: "/flags/f/when/rollout/percent", rules: #"{"flags": {"f": {"when": {"rollout": {"percent": 101}}}}}"#),
    .init(code: "invalid_pattern", path: "/flags/f/when/attr/matches", rules: #"{"flags": {"f": {"when": {"attr": {"key": "a", "matches": "("}}}}}"#),
    .init(code: "missing_field", path: "/flags/f/when/maxCount/limit", rules: #"{"flags": {"f": {"when": {"maxCount": {"counter": "c"}}}}}"#),
    .init(code: "multiple_operators", path: "/flags/f/when", rules: #"{"flags": {"f": {"when": {"always": true, "segment": "x"}}}}"#),
    .init(
        code: "unreachable_case", path: "/flags/f/cases/1",
        rules: #"{"flags": {"f": {"cases": [{"when": {"always": true}, "value": 1}, {"when": {"segment": "x"}, "value": 2}], "fallback": 0}}}"#),
    .init(
        code: "unreferenced_trigger_event", path: "/triggers/t/on/0",
        rules: #"{"flags": {}, "triggers": {"t": {"on": ["entityCreated"], "when": {"always": true}}}}"#),
    // Paths escape keys as RFC 6901 says ("~" as "~0", "/" as "~1"); other bytes pass as they are.
    .init(code: "unknown_field", path: "/specs/a~1b~0c~01/colour", rules: #"{"specs": {"a/b~c~1": {"always": true, "colour": 1}}, "flags": {}}"#),
    .init(code: "unknown_field", path: "/specs/caf\u{E9}/colour", rules: #"{"specs": {"caf\u00e9": {"always": true, "colour": 1}}, "flags": {}}"#)
]

@Suite struct ValidationTests {
    @Test(arguments: validationCases)
    func diagnostic_hasItsCodeAndPath(_ test: ValidationCase) throws {
        let found = try diagnostics(test.rules)
        #expect(found.contains { $0.code == test.code && $0.path == test.path }, "got \(found)")
    }

    @Test func warnings_doNotStopLoading_errorsDo() throws {
        let warned = RuleSetCompiler.compile(try JSONParser().parse(validationCases.first { $0.code == "unreachable_case" }!.rules))
        #expect((try? warned.get()) != nil)
        #expect(try warned.get().warnings.map(\.severity) == [.warning])
    }

    @Test func oneErrorAnywhere_loadsNothing() throws {
        let rules = #"{"flags": {"good": {"when": {"always": true}}, "bad": {"when": {"maxCount": {"counter": "c", "limit": -2}}}}}"#
        let result = RuleSetCompiler.compile(try JSONParser().parse(rules))
        guard case .failure(let error) = result else {
            Issue.record("a set with an error loaded")
            return
        }
        #expect(error.errors.count == 1)
    }

    @Test func everyProblemIsReportedTogether() throws {
        let rules = #"{"flags": {"a": {"when": {"any": []}}, "b": {"when": {"hourIn": [1, 99]}}, "c": {"when": {"ref": "x"}}}}"#
        #expect(Set(try diagnostics(rules).map(\.code)) == ["empty_combinator", "hour_out_of_range", "unknown_ref"])
    }

    @Test func duplicateKeysAcrossFiles_areErrorsNamingBothFiles() throws {
        let directory = NSTemporaryDirectoryPath() + "/specd-rules-\(UInt32.random(in: 0...UInt32.max))"
        try makeDirectory(directory)
        try write(#"{"flags": {"f": {"when": {"always": true}}}}"#, to: directory + "/a.json")
        try write(#"{"flags": {"f": {"when": {"always": false}}, "g": {"when": {"always": true}}}}"#, to: directory + "/b.json")
        guard case .failure(let error) = RuleSetLoader.load(path: directory) else {
            Issue.record("duplicate keys loaded")
            return
        }
        #expect(error.diagnostics.first?.code == "duplicate_key")
        #expect(error.diagnostics.first?.path == "/flags/f")
        #expect(error.diagnostics.first?.message.contains("a.json") == true)
    }

    /// A section that was not an object was stored as is: a later file's object replaced it and the directory passed
    /// as valid, or it replaced an earlier object and the error named the directory, not the file.
    @Test(arguments: [("a.json", "b.json"), ("b.json", "a.json")])
    func sectionThatIsNotAnObject_isAWrongTypeNamingItsFile_inEitherOrder(malformed: String, good: String) throws {
        let directory = NSTemporaryDirectoryPath() + "/specd-rules-\(UInt32.random(in: 0...UInt32.max))"
        try makeDirectory(directory)
        try write(#"{"flags": ["oops"], "triggers": "nonsense"}"#, to: directory + "/" + malformed)
        try write(#"{"flags": {"ok": {"when": {"always": true}}}, "triggers": {}}"#, to: directory + "/" + good)
        guard case .failure(let error) = RuleSetLoader.load(path: directory) else {
            Issue.record("a malformed section loaded")
            return
        }
        let wrongTypes = error.diagnostics.filter { $0.code == "wrong_type" }
        #expect(Set(wrongTypes.map(\.path)) == ["/flags", "/triggers"])
        #expect(wrongTypes.allSatisfy { $0.file == directory + "/" + malformed })
    }

    /// `description` and `$schema` are free text in every file of a directory.
    @Test func freeTextSectionsInSeveralFiles_stillLoad() throws {
        let directory = NSTemporaryDirectoryPath() + "/specd-rules-\(UInt32.random(in: 0...UInt32.max))"
        try makeDirectory(directory)
        try write(#"{"description": "specs", "$schema": "x", "specs": {"s": {"segment": "vip"}}}"#, to: directory + "/a.json")
        try write(#"{"description": "flags", "$schema": "x", "flags": {"f": {"when": {"ref": "s"}}}}"#, to: directory + "/b.json")
        #expect(try RuleSetLoader.load(path: directory).get().flagKeys == ["f"])
    }

    @Test func directory_mergesFiles() throws {
        let directory = NSTemporaryDirectoryPath() + "/specd-rules-\(UInt32.random(in: 0...UInt32.max))"
        try makeDirectory(directory)
        try write(#"{"specs": {"s": {"segment": "vip"}}}"#, to: directory + "/specs.json")
        try write(#"{"flags": {"f": {"when": {"ref": "s"}}}}"#, to: directory + "/flags.json")
        let set = try RuleSetLoader.load(path: directory).get()
        #expect(set.flagKeys == ["f"])
    }
}

@Suite struct RulesFormatTests {
    static let native = #"{"flags": {"n": {"when": {"always": true}}}}"#
    static let flagd = #"{"flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}"#

    @Test func auto_acceptsBothShapes() throws {
        #expect((try? RuleSetCompiler.compile(JSONParser().parse(Self.native), format: .auto).get()) != nil)
        #expect((try? RuleSetCompiler.compile(JSONParser().parse(Self.flagd), format: .auto).get()) != nil)
    }

    @Test func flagdFormat_refusesNativeFlags_andSpecdFormat_refusesFlagdFlags() throws {
        guard case .failure(let nativeAsFlagd) = RuleSetCompiler.compile(try JSONParser().parse(Self.native), format: .flagd) else {
            Issue.record("a native flag loaded as flagd")
            return
        }
        #expect(nativeAsFlagd.errors.contains { $0.path == "/flags/n/when" || $0.path == "/flags/n/state" })
        guard case .failure(let flagdAsSpecd) = RuleSetCompiler.compile(try JSONParser().parse(Self.flagd), format: .specd) else {
            Issue.record("a flagd flag loaded as specd")
            return
        }
        #expect(flagdAsSpecd.errors.first?.path == "/flags/f/state")
    }
}
