import Foundation
import Rules

/// Structured logging: one JSON object a line (`ts`, `level`, `msg`, then the fields in order).
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warn, error

        public var name: String { ["debug", "info", "warn", "error"][rawValue] }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let level: Level
    let sink: LogSink

    public init(level: Level = .info, sink: LogSink = StandardErrorSink()) {
        self.level = level
        self.sink = sink
    }

    public func enabled(_ candidate: Level) -> Bool { candidate >= level }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.info, message, fields) }
    public func warn(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.warn, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, JSONValue>) {
        guard enabled(level) else { return }
        var line: [UInt8] = []
        line.reserveCapacity(128)
        line += Array(#"{"ts":""#.utf8)
        line += Array(ISO8601.format(Instant(seconds: Date().timeIntervalSince1970), fraction: .milliseconds).utf8)
        line += Array(#"","level":""#.utf8)
        line += Array(level.name.utf8)
        line += Array(#"","msg":"#.utf8)
        JSONWriter.writeString(message, into: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            JSONWriter.writeString(key, into: &line)
            line.append(UInt8(ascii: ":"))
            JSONWriter.write(value, into: &line)
        }
        line += Array("}\n".utf8)
        sink.write(line)
    }
}
