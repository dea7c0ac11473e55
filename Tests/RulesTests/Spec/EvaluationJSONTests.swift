import Rules
import Testing

@Suite struct EvaluationJSONTests {
    static let cases: [Evaluation] = [
        Evaluation(key: "a", value: nil, reason: .defaultValue, matched: false),
        Evaluation(key: "b", value: true, reason: .staticValue, matched: true),
        Evaluation(key: "c", value: ["x": [1, "two"]], variant: "on \"quoted\"", reason: .targetingMatch, index: 3, matched: true),
        Evaluation(key: "d", value: 0.5, variant: "half", reason: .split, index: 0, matched: true),
        Evaluation.notFound("missing\nkey"),
        Evaluation(
            key: "e", value: nil, reason: .error, matched: false, errorCode: .typeMismatch, errorMessage: "expected a number")
    ]

    /// The one-flag answer writes these members itself; they must be the bytes `json` gives, in its order.
    @Test(arguments: cases)
    func writeJSONMembers_isJSONWithoutItsBraces(evaluation: Evaluation) {
        var members: [UInt8] = [UInt8(ascii: "{")]
        evaluation.writeJSONMembers(into: &members)
        members.append(UInt8(ascii: "}"))
        #expect(String(decoding: members, as: UTF8.self) == JSONWriter.string(evaluation.json))
    }
}
