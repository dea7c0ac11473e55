import Rules
import Testing

struct LogicCase: CustomTestStringConvertible, Sendable {
    let rule: String
    let data: String
    let expected: String
    init(_ rule: String, _ expected: String, data: String = "{}") {
        self.rule = rule
        self.data = data
        self.expected = expected
    }
    var testDescription: String { rule }
}

/// Every JSON Logic operator flagd supports (docs/rules.md, "flagd definitions and JSON Logic"), with the
/// JavaScript coercions flagd inherits.
let logicCases: [LogicCase] = [
    .init(#"{"var": "a.b"}"#, "3", data: #"{"a": {"b": 3}}"#),
    .init(#"{"var": ["missing", "dflt"]}"#, #""dflt""#),
    .init(#"{"var": "list.1"}"#, #""y""#, data: #"{"list": ["x", "y"]}"#),
    .init(#"{"var": ""}"#, #"{"k":1}"#, data: #"{"k": 1}"#),
    .init(#"{"if": [true, "yes", "no"]}"#, #""yes""#),
    .init(#"{"if": [false, "a", 0, "b", "c"]}"#, #""c""#),
    .init(#"{"if": [false, "a"]}"#, "null"),
    .init(#"{"==": [1, "1"]}"#, "true"),
    .init(#"{"==": [0, false]}"#, "true"),
    .init(#"{"==": [null, 0]}"#, "false"),
    .init(#"{"==": ["", 0]}"#, "true"),
    .init(#"{"===": [1, "1"]}"#, "false"),
    .init(#"{"===": [1, 1.0]}"#, "true"),
    .init(#"{"!=": ["a", "b"]}"#, "true"),
    .init(#"{"!==": [1, "1"]}"#, "true"),
    .init(#"{"<": [1, 2]}"#, "true"),
    .init(#"{"<": ["10", 9]}"#, "false"),
    .init(#"{"<": ["a", "b"]}"#, "true"),
    .init(#"{"<": [1, 2, 3]}"#, "true"),
    .init(#"{"<": [1, 3, 3]}"#, "false"),
    .init(#"{"<=": [1, 1, 3]}"#, "true"),
    .init(#"{">": ["11", "9"]}"#, "false"),
    .init(#"{">=": [2, "2"]}"#, "true"),
    .init(#"{">": [{"var": "missing"}, 1]}"#, "false"),
    .init(#"{"!": [[]]}"#, "true"),
    .init(#"{"!!": ["0"]}"#, "true"),
    .init(#"{"!!": [0]}"#, "false"),
    .init(#"{"and": [1, "", 2]}"#, #""""#),
    .init(#"{"and": [1, 2]}"#, "2"),
    .init(#"{"or": [0, null, "x"]}"#, #""x""#),
    .init(#"{"or": [0, false]}"#, "false"),
    .init(#"{"in": ["ell", "hello"]}"#, "true"),
    .init(#"{"in": ["b", ["a", "b"]]}"#, "true"),
    .init(#"{"in": [1, ["1"]]}"#, "false"),
    .init(#"{"cat": ["a", 1, true, null, 1.5]}"#, #""a1truenull1.5""#),
    .init(#"{"substr": ["jsonlogic", 4]}"#, #""logic""#),
    .init(#"{"substr": ["jsonlogic", -5]}"#, #""logic""#),
    .init(#"{"substr": ["jsonlogic", 1, 3]}"#, #""son""#),
    .init(#"{"substr": ["jsonlogic", 4, -2]}"#, #""log""#),
    .init(#"{"+": [1, "2", 3.5]}"#, "6.5"),
    .init(#"{"+": ["3"]}"#, "3"),
    .init(#"{"+": ["x", 1]}"#, "null"),
    .init(#"{"-": [5, "2"]}"#, "3"),
    .init(#"{"-": [2]}"#, "-2"),
    .init(#"{"*": [2, "3"]}"#, "6"),
    .init(#"{"/": [7, 2]}"#, "3.5"),
    .init(#"{"/": [1, 0]}"#, "null"),
    .init(#"{"%": [7, 3]}"#, "1"),
    .init(#"{"min": [3, "1", 2]}"#, "1"),
    .init(#"{"max": [3, 1, 2]}"#, "3"),
    .init(#"{"max": [3, "x"]}"#, "null"),
    .init(#"{"merge": [[1, 2], 3, [[4]]]}"#, "[1,2,3,[4]]"),
    .init(#"{"missing": ["a", "b"]}"#, #"["b"]"#, data: #"{"a": 1}"#),
    .init(#"{"missing": ["a.x"]}"#, "[]", data: #"{"a": {"x": 0}}"#),
    .init(#"{"missing_some": [1, ["a", "b"]]}"#, "[]", data: #"{"b": 1}"#),
    .init(#"{"missing_some": [2, ["a", "b"]]}"#, #"["a"]"#, data: #"{"b": 1}"#),
    .init(#"{"map": [[1, 2], {"*": [{"var": ""}, 2]}]}"#, "[2,4]"),
    .init(#"{"filter": [[1, 2, 3], {">": [{"var": ""}, 1]}]}"#, "[2,3]"),
    .init(#"{"reduce": [[1, 2, 3], {"+": [{"var": "current"}, {"var": "accumulator"}]}, 10]}"#, "16"),
    .init(#"{"all": [[1, 2], {">": [{"var": ""}, 0]}]}"#, "true"),
    .init(#"{"all": [[], {">": [{"var": ""}, 0]}]}"#, "false"),
    .init(#"{"none": [[1, 2], {">": [{"var": ""}, 5]}]}"#, "true"),
    .init(#"{"some": [[1, 9], {">": [{"var": ""}, 5]}]}"#, "true"),
    .init(#"{"unknown_op": [1]}"#, "null"),
    .init(#""plain""#, #""plain""#)
]

@Suite struct JSONLogicTests {
    @Test(arguments: logicCases)
    func operator_behavesAsJSONLogic(_ test: LogicCase) throws {
        let parser = JSONParser()
        let result = JSONLogic().apply(try parser.parse(test.rule), try parser.parse(test.data))
        #expect(JSONWriter.string(result) == test.expected, "\(test.rule)")
    }

    @Test func extensions_receiveEvaluatedArgumentsOnDemand() throws {
        let logic = JSONLogic(extensions: [
            "double": { arguments, data, logic in
                JSONLogic.numberValue((JSONLogic.number(logic.apply(arguments[0], data)) ?? 0) * 2)
            }
        ])
        #expect(logic.apply(try JSONParser().parse(#"{"double": [{"var": "n"}]}"#), ["n": 21]) == 42)
    }

    @Test func truthiness_followsJSONLogic() {
        #expect(!JSONLogic.truthy([]))
        #expect(JSONLogic.truthy(["k": 1]))
        #expect(!JSONLogic.truthy(""))
        #expect(JSONLogic.truthy("0"))
    }
}
