/// One problem found while validating a rule set, located by JSON pointer (DESIGN §3.5).
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
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
        var object: JSONObject = ["severity": .string(severity.rawValue), "path": .string(path), "code": .string(code),
                                  "message": .string(message)]
        if let file { object["file"] = .string(file) }
        return .object(object)
    }
}

/// A JSON pointer under construction (RFC 6901 escaping).
public struct JSONPointer: Sendable, CustomStringConvertible {
    public private(set) var text: String

    public init(_ text: String = "") {
        self.text = text
    }

    /// `token` escaped as RFC 6901 says: `~` as `~0`, then `/` as `~1`.
    public func appending(_ token: String) -> JSONPointer {
        // The compiler builds a pointer for every node it visits: a byte scan keeps the common case (nothing to
        // escape) off Foundation's locale-aware string search, which dominated compiling small rule files.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return JSONPointer(text + "/" + token)
        }
        return JSONPointer(text + "/" + token.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1"))
    }

    public func appending(_ index: Int) -> JSONPointer { JSONPointer(text + "/" + String(index)) }

    public var description: String { text }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
