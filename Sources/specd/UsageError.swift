/// A command-line or configuration mistake: printed with the usage hint, exit code 1.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
