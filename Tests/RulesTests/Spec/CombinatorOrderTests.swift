import Rules
import TestRandom
import Testing

/// `all`, `any` and `none` ask their cheap children first and their costly ones (a history, a zone's hour, a
/// rollout, a nested combinator) only if the answer is still open (`Spec.anyChild`). Every node is a pure test, so
/// that may change only the cost: pinned here against the children asked in their declared order, over random
/// trees of every leaf kind, users and instants.
@Suite struct CombinatorOrderTests {
    /// The definition: children in the order the rule file lists them.
    static func inDeclaredOrder(_ spec: Spec, _ input: EvaluationInput) -> Bool {
        switch spec {
        case .all(let children): return children.allSatisfy { inDeclaredOrder($0, input) }
        case .any(let children): return children.contains { inDeclaredOrder($0, input) }
        case .none(let children): return !children.contains { inDeclaredOrder($0, input) }
        case .not(let child): return !inDeclaredOrder(child, input)
        case .atLeast(let count, let children): return children.filter { inDeclaredOrder($0, input) }.count >= count
        case .ref(_, let child): return inDeclaredOrder(child, input)
        default: return spec.holds(input)
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func combinators_answerAsTheirChildrenInDeclaredOrder(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var (held, failed) = (0, 0)
        for _ in 0..<400 {
            let spec = try compileSpec(ValidUntilPropertyTests.spec(&random, depth: 3))
            for _ in 0..<5 {
                let sample = input(ValidUntilPropertyTests.randomUser(&random), t0 + Int64(random.next(upTo: Int(day))))
                let answer = spec.holds(sample)
                #expect(answer == Self.inDeclaredOrder(spec, sample), "\(spec)")
                if answer { held += 1 } else { failed += 1 }
            }
        }
        // Both answers are exercised.
        #expect(held > 200)
        #expect(failed > 200)
    }

    /// The example rules' `power-user-badge` shape: a costly history first, then an attribute most users lack.
    /// The answer is the attribute's, whichever order; a user with the score and the days holds it.
    @Test func anAllWithACostlyFirstChild_answersByItsCheapOnes_andHoldsWhenEveryChildDoes() throws {
        let spec = try compileSpec(
            #"{"all": [{"history": {"event": "d", "over": "3h", "per": "hour", "stat": "activePeriods", "gte": 1}}, {"attr": {"key": "plan", "eq": "pro"}}]}"#
        )
        let donated = context { user in
            user.donations["d"] = DonationSummary(
                count: 1, first: .init(at: t0 - hour, appVersion: nil), last: .init(at: t0 - hour, appVersion: nil), recent: [t0 - hour])
        }
        #expect(!spec.holds(input(donated, t0)))
        var pro = donated
        pro.attributes["plan"] = .string("pro")
        #expect(spec.holds(input(pro, t0)))
        var proWithoutDays = pro
        proWithoutDays.donations["d"] = nil
        #expect(!spec.holds(input(proWithoutDays, t0)))
    }
}
