/// One problem found while validating a rule set, located by JSON pointer (docs/rules.md, "Validation").
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public let severity: Severity
    public let path: String
    public let code: String
    public let message: String
    /// The file the path points into, when the rule set came from several files.
    public var file: String?

    public init(_ severity: Severity, path: String, code: String, message: String, file: String? = nil) {
        self.severity = severity
        self.path = path
        self.code = code
        self.message = message
        self.file = file
    }

    public var description: String {
        let location = (file.map { $0 + ":" } ?? "") + (path.isEmpty ? "/" : path)
        return "\(severity.rawValue): \(location): \(message) [\(code)]"
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "severity": .string(severity.rawValue), "path": .string(path), "code": .string(code),
            "message": .string(message)
        ]
        if let file { object["file"] = .string(file) }
        return .object(object)
    }
}
