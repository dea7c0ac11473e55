import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A failed file operation: which call, on which path, with which errno.
public struct IOError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let path: String
    public let code: Int32
    /// What went wrong when it is not an errno's story (a snapshot that does not read back whole).
    public let detail: String?

    public init(call: String, path: String, code: Int32, detail: String? = nil) {
        self.call = call
        self.path = path
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(call)(\(path)): \(detail ?? String(cString: strerror(code)))" }
}
