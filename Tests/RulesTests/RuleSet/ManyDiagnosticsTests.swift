import Rules
import Testing

/// A rule file may carry tens of thousands of diagnostics (a generated file, or a 1 MB body on
/// `POST /v1/rules/validate`): each is recorded once, in order, without scanning those before it.
@Suite struct ManyDiagnosticsTests {
    /// 40 000 flags with an unknown operator each took minutes to validate: each flag's compiler began as a copy of
    /// the whole state, so the diagnostics so far were copied per flag, and every diagnostic was compared with every
    /// one before it. A hang guard, not a speed target (the benchmarks hold those): 148 s before, 1.4 s after, here.
    @Test func fortyThousandErrors_areEachReportedOnce_withoutAHang() throws {
        let count = 40_000
        let flags = (0..<count).map { #""f\#($0)": {"when": {"bogus": 1}}"# }.joined(separator: ", ")
        let clock = ContinuousClock()
        let started = clock.now
        let document = try JSONParser(maxBytes: 8 << 20).parse(#"{"flags": {\#(flags)}}"#)
        guard case .failure(let error) = RuleSetCompiler.compile(document) else {
            Issue.record("the file validated")
            return
        }
        let found = error.diagnostics
        #expect(clock.now - started < .seconds(60))
        let unknown = found.filter { $0.code == "unknown_operator" }
        #expect(unknown.count == count)
        #expect(Set(unknown.map(\.path)).count == count)
        #expect(unknown.first?.path == "/flags/f0/when/bogus")
    }

    /// A valid file whose 40 000 warnings were as slow as the errors.
    @Test func fortyThousandWarnings_onAValidFile_areEachReportedOnce() throws {
        let count = 40_000
        let flags = (0..<count).map { #""f\#($0)": {"cases": [{"when": {"always": true}, "value": 1}, {"when": {"always": true}, "value": 2}]}"# }
            .joined(separator: ", ")
        let clock = ContinuousClock()
        let started = clock.now
        let set = try RuleSetCompiler.compile(JSONParser(maxBytes: 8 << 20).parse(#"{"flags": {\#(flags)}}"#)).get()
        #expect(clock.now - started < .seconds(60))
        #expect(set.warnings.filter { $0.code == "unreachable_case" }.count == count)
    }

    /// The same diagnostic twice (one node reached twice) is still reported once.
    @Test func aRepeatedDiagnostic_isReportedOnce() throws {
        let found = try diagnostics(#"{"specs": {"s": {"bogus": 1}}, "flags": {"f": {"when": {"all": [{"ref": "s"}, {"ref": "s"}]}}}}"#)
        let paths = found.filter { $0.code == "unknown_operator" }.map(\.path)
        #expect(paths.count == Set(paths).count)
        #expect(!paths.isEmpty)
    }
}
