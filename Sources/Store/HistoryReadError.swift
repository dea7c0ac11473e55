/// Why a user's history could not be read from the data directory.
public enum HistoryReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This store keeps no log (an in-memory store, as scenario runs use).
    case noLog
    /// A file could not be read (after retrying a file compaction removed meanwhile).
    case unreadable(IOError)
    /// A retained file is damaged where a record or a snapshot should be.
    case corrupt(file: String, offset: Int, reason: String)

    public var description: String {
        switch self {
        case .noLog: return "this store keeps no log"
        case .unreadable(let error): return "\(error)"
        case .corrupt(let file, let offset, let reason): return "\(file) at byte \(offset): \(reason)"
        }
    }
}
