import Foundation
import Rules

/// Rebuilds state from the newest valid snapshot plus the records after it (DESIGN §7). A torn final record is
/// cut off with a warning; damage anywhere else refuses, naming the file and offset.
public enum Recovery {
    public struct Report: Sendable, Equatable {
        public var snapshot: String?
        public var snapshotSeq: UInt64 = 0
        public var replayedRecords = 0
        public var lastSeq: UInt64 = 0
        public var warnings: [String] = []
        /// The segment to keep appending to, when its tail was sound.
        public var lastSegment: String?
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case corrupt(file: String, offset: Int, reason: String)
        case unreadable(IOError)

        public var description: String {
            switch self {
            case .corrupt(let file, let offset, let reason): return "\(file) at byte \(offset): \(reason)"
            case .unreadable(let error): return "\(error)"
            }
        }
    }

    static func files(in directory: String, fileSystem: FileSystem) throws(Failure) -> (snapshots: [(UInt64, String)], segments: [(UInt64, String)], temporary: [String]) {
        let names: [String]
        do {
            names = try fileSystem.list(directory)
        } catch {
            throw .unreadable(error)
        }
        func number(_ name: String, prefix: String, suffix: String) -> UInt64? {
            guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
            return UInt64(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
        let path = { (name: String) in (directory as NSString).appendingPathComponent(name) }
        let snapshots = names.compactMap { name in number(name, prefix: "snapshot-", suffix: ".snap").map { ($0, path(name)) } }.sorted { $0.0 > $1.0 }
        let segments = names.compactMap { name in number(name, prefix: "segment-", suffix: ".log").map { ($0, path(name)) } }.sorted { $0.0 < $1.0 }
        let temporary = names.filter { $0.hasSuffix(".tmp") }.map(path)
        return (snapshots, segments, temporary)
    }

    /// Recovers into `store`. With `repair` false nothing on disk changes (for `specd check-data`).
    public static func run(directory: String, fileSystem: FileSystem, repair: Bool, apply: (Mutation) -> Void,
                           loadSnapshot: ([String: UserContext]) -> Void) throws(Failure) -> Report {
        var report = Report()
        let found = try files(in: directory, fileSystem: fileSystem)
        if repair { for temporary in found.temporary { try? fileSystem.remove(temporary) } }
        // The newest snapshot that reads back whole; an unreadable newer one is reported, and then the records
        // it covered must still be in the log, or the gap check below refuses.
        for (seq, path) in found.snapshots {
            do {
                let bytes = try fileSystem.read(path)
                let (snapshotSeq, users) = try SnapshotFile.read(bytes)
                guard snapshotSeq == seq else { throw SnapshotFile.ReadFailure.corrupt(offset: 8, reason: "seq does not match the name") }
                loadSnapshot(users)
                report.snapshot = path
                report.snapshotSeq = seq
                break
            } catch let failure as SnapshotFile.ReadFailure {
                guard case .corrupt(let offset, let reason) = failure else { continue }
                report.warnings.append("snapshot \(path) unusable at byte \(offset): \(reason)")
            } catch {
                report.warnings.append("snapshot \(path) unreadable")
            }
        }
        var expected = report.snapshotSeq + 1
        report.lastSeq = report.snapshotSeq
        for (index, (firstSeq, path)) in found.segments.enumerated() {
            let isLast = index == found.segments.count - 1
            let bytes: [UInt8]
            do {
                bytes = try fileSystem.read(path)
            } catch {
                throw .unreadable(error)
            }
            _ = firstSeq
            var offset = 0
            while offset < bytes.count {
                switch LogRecord.scan(bytes, at: offset) {
                case .record(let seq, let payload, let next):
                    if seq < expected {
                        // Already in the snapshot (or a stale segment about to be compacted).
                        if seq > report.snapshotSeq { throw .corrupt(file: path, offset: offset, reason: "seq \(seq) repeats or goes backwards") }
                        offset = next
                        continue
                    }
                    guard seq == expected else {
                        throw .corrupt(file: path, offset: offset, reason: "expected seq \(expected), found \(seq): records are missing")
                    }
                    guard let mutation = try? MutationCodec.decode(bytes, from: payload.lowerBound, to: payload.upperBound) else {
                        throw .corrupt(file: path, offset: offset, reason: "record payload does not decode")
                    }
                    apply(mutation)
                    report.replayedRecords += 1
                    report.lastSeq = seq
                    expected = seq + 1
                    offset = next
                case .incomplete, .damaged:
                    let tornTail = isLast && !LogRecord.validRecordExists(in: bytes, after: offset, minimumSeq: expected)
                    guard tornTail else {
                        throw .corrupt(file: path, offset: offset, reason: "record fails its checksum or length check")
                    }
                    report.warnings.append("torn tail in \(path) at byte \(offset): \(bytes.count - offset) bytes \(repair ? "truncated" : "would be truncated")")
                    if repair {
                        do {
                            try fileSystem.truncate(path, to: offset)
                        } catch {
                            throw .unreadable(error)
                        }
                    }
                    offset = bytes.count
                }
            }
            if isLast { report.lastSegment = path }
        }
        return report
    }
}
