import Rules
import Testing

/// `Flag.position`: each flag's place in declaration order, which per-flag tallies index by.
@Suite struct FlagPositionTests {
    @Test func positions_areDeclarationOrder_evenForAPrerequisiteCompiledFirst_andDisplayFlags() throws {
        let set = try ruleSet(
            #"{"groups": {"g": {"frequency": "1h"}}, "flags": {"a": {"when": {"prerequisite": {"flag": "c", "equals": true}}}, "#
                + #""t": {"when": {"always": true}, "display": {"group": "g"}}, "b": {"cases": [], "fallback": 1}, "#
                + #""c": {"when": {"segment": "x"}}, "f": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}"#)
        #expect(set.declaredFlags.map(\.key) == ["a", "t", "b", "c", "f"])
        #expect(set.declaredFlags.map(\.position) == [0, 1, 2, 3, 4])
        for flag in set.declaredFlags { #expect(set.flags[flag.key]?.position == flag.position) }
    }
}
