/// One node of an evaluation tree: what was tested, its result, and why: the tree `?explain=1` answers
/// (docs/api.md, "Evaluation").
public struct ExplainNode: Sendable, Equatable {
    public let node: String
    public let result: Bool
    public let why: String?
    public let children: [ExplainNode]

    public var json: JSONValue {
        var object: JSONObject = ["node": .string(node), "result": .bool(result)]
        if let why { object["why"] = .string(why) }
        if !children.isEmpty { object["children"] = .array(children.map(\.json)) }
        return .object(object)
    }
}
