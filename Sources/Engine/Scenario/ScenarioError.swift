import Rules

/// A scenario file that cannot run: which file, where in it (a JSON pointer), and why — reported like a rule
/// diagnostic, and `specd test` exits 2.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let path: String
    public let message: String

    public init(file: String, path: JSONPointer, message: String) {
        self.file = file
        self.path = path.text.isEmpty ? "/" : path.text
        self.message = message
    }

    public var description: String { "\(file): \(path): \(message)" }
}
