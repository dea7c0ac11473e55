/// The outcome of evaluating one flag for one user at one instant: data, never an exception (STYLE habit 5).
/// The flag's metadata is not copied in (it would cost every evaluation); callers read it from the `Flag`.
public struct Evaluation: Sendable, Equatable {
    public enum Reason: String, Sendable {
        case staticValue = "STATIC"
        case targetingMatch = "TARGETING_MATCH"
        case defaultValue = "DEFAULT"
        case disabled = "DISABLED"
        case split = "SPLIT"
        case error = "ERROR"
        /// A display flag whose display was invalidated (docs/rules.md, "Display accounting").
        case invalidated = "INVALIDATED"
    }

    public enum ErrorCode: String, Sendable {
        case flagNotFound = "FLAG_NOT_FOUND"
        case typeMismatch = "TYPE_MISMATCH"
        case parseError = "PARSE_ERROR"
        case invalidContext = "INVALID_CONTEXT"
        case general = "GENERAL"
    }

    public let key: String
    /// `nil` when no value was decided: a decision without fallback that nothing matched, or an error.
    public var value: JSONValue?
    public var variant: String?
    public var reason: Reason
    /// The matched case; `cases.count` for the fallback; `nil` for boolean flags and undecided answers.
    public var index: Int?
    public var matched: Bool
    public var errorCode: ErrorCode?
    public var errorMessage: String?

    public init(
        key: String, value: JSONValue?, variant: String? = nil, reason: Reason, index: Int? = nil, matched: Bool,
        errorCode: ErrorCode? = nil, errorMessage: String? = nil
    ) {
        self.key = key
        self.value = value
        self.variant = variant
        self.reason = reason
        self.index = index
        self.matched = matched
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    public static func notFound(_ key: String) -> Evaluation {
        Evaluation(
            key: key, value: nil, reason: .error, matched: false, errorCode: .flagNotFound,
            errorMessage: "flag '\(key)' is not defined")
    }

    /// The members of `json`, in its order and bytes, without the braces, written straight into `out`: the
    /// one-flag answer puts its `key` first and so builds no `JSONObject` per request.
    public func writeJSONMembers(into out: inout [UInt8]) {
        JSONWriter.append(#""value":"#, into: &out)
        JSONWriter.write(value ?? .null, into: &out)
        if let variant {
            JSONWriter.append(#","variant":"#, into: &out)
            JSONWriter.writeString(variant, into: &out)
        }
        JSONWriter.append(#","reason":"#, into: &out)
        JSONWriter.writeString(reason.rawValue, into: &out)
        if let index {
            JSONWriter.append(#","index":"#, into: &out)
            JSONWriter.write(.int(index), into: &out)
        }
        JSONWriter.append(matched ? #","matched":true"# : #","matched":false"#, into: &out)
        if let errorCode {
            JSONWriter.append(#","errorCode":"#, into: &out)
            JSONWriter.writeString(errorCode.rawValue, into: &out)
        }
        if let errorMessage {
            JSONWriter.append(#","errorMessage":"#, into: &out)
            JSONWriter.writeString(errorMessage, into: &out)
        }
    }

    /// `{value, variant?, reason, index?, matched}` as the REST API answers it.
    public var json: JSONValue {
        var object: JSONObject = ["value": value ?? .null]
        if let variant { object["variant"] = .string(variant) }
        object["reason"] = .string(reason.rawValue)
        if let index { object["index"] = .int(index) }
        object["matched"] = .bool(matched)
        if let errorCode { object["errorCode"] = .string(errorCode.rawValue) }
        if let errorMessage { object["errorMessage"] = .string(errorMessage) }
        return .object(object)
    }
}
