import Foundation
import Rules

/// Rebuilds state from the newest valid snapshot plus the records after it (README, "Data and durability").
///
/// A torn final record is cut off with a warning; damage anywhere else in the log refuses, naming the file and
/// offset. A damaged snapshot is never a reason to start with less: recovery then goes back to the previous
/// snapshot (or the very first record) and replays every segment after it — but only when that chain is whole and
/// reaches at least as far as the damaged snapshot did. Otherwise it refuses, naming the snapshot.
public enum Recovery {
    public struct Report: Sendable, Equatable {
        /// The snapshot the state was rebuilt from; `nil` when the log was replayed from its first record.
        public var snapshot: String?
        public var snapshotSeq: UInt64 = 0
        public var replayedRecords = 0
        /// The log bytes those records take, framing included: what the log had grown by since the snapshot.
        public var replayedBytes = 0
        public var lastSeq: UInt64 = 0
        public var warnings: [String] = []
        /// The segment to keep appending to, when its tail was sound.
        public var lastSegment: String?
        /// Snapshots newer than `snapshot` that failed their checks, as "path at byte N: reason". Not empty means
        /// recovery went back past them: the data is whole, but the directory held corruption.
        public var damagedSnapshots: [String] = []
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

    static func files(
        in directory: String, fileSystem: FileSystem
    ) throws(Failure) -> (snapshots: [(UInt64, String)], segments: [(UInt64, String)], temporary: [String]) {
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
        let snapshots = names.compactMap { name in number(name, prefix: "snapshot-", suffix: ".snap").map { ($0, path(name)) } }.sorted {
            $0.0 > $1.0
        }
        let segments = names.compactMap { name in number(name, prefix: "segment-", suffix: ".log").map { ($0, path(name)) } }.sorted { $0.0 < $1.0 }
        let temporary = names.filter { $0.hasSuffix(".tmp") }.map(path)
        return (snapshots, segments, temporary)
    }

    /// A snapshot that failed its checks.
    struct Damage {
        let path: String
        let seq: UInt64
        let offset: Int
        let reason: String
    }

    /// Recovers: hands the base snapshot's users to `loadSnapshot`, already spread over `shardCount` shards as
    /// `UserStore` places them (so a million users are not copied from one table into the shards), then every later
    /// record to `apply`, in seq order. With `repair` false nothing on disk changes (for `specd check-data`).
    public static func run(
        directory: String, fileSystem: FileSystem, repair: Bool, shardCount: Int = 1, apply: (Mutation) -> Void,
        loadSnapshot: ([UserTable]) -> Void
    ) throws(Failure) -> Report {
        var report = Report()
        let found = try files(in: directory, fileSystem: fileSystem)
        if repair { for temporary in found.temporary { try? fileSystem.remove(temporary) } }
        // The newest snapshot that reads back whole is the base; every newer one is damaged.
        var damaged: [Damage] = []
        for (seq, path) in found.snapshots {
            do {
                let (snapshotSeq, users) = try SnapshotFile.load(path, fileSystem: fileSystem, shardCount: shardCount)
                guard snapshotSeq == seq else {
                    throw SnapshotFile.ReadFailure.corrupt(offset: 8, reason: "holds seq \(snapshotSeq), not the \(seq) its name says")
                }
                loadSnapshot(users)
                report.snapshot = path
                report.snapshotSeq = seq
                break
            } catch let failure as SnapshotFile.ReadFailure {
                damaged.append(Damage(path: path, seq: seq, offset: failure.offset, reason: failure.reason))
            } catch {
                damaged.append(Damage(path: path, seq: seq, offset: 0, reason: "\(error)"))
            }
        }
        report.damagedSnapshots = damaged.map { "\($0.path) at byte \($0.offset): \($0.reason)" }
        // The damaged snapshot held every record up to its seq: the way back must reach at least that far.
        let newestDamage = damaged.first
        let base = report.snapshot.map { "snapshot \($0)" } ?? "the first record"
        func refuse(_ why: String) -> Failure {
            guard let newestDamage else { return .corrupt(file: "", offset: 0, reason: why) }
            return .corrupt(
                file: newestDamage.path, offset: newestDamage.offset,
                reason: "\(newestDamage.reason); no whole way back from \(base): \(why)")
        }
        do throws(Failure) {
            try replay(found.segments, from: report.snapshotSeq, into: &report, repair: repair, fileSystem: fileSystem, apply: apply)
        } catch {
            // A gap or damage in the log is the log's story, unless it is what stands between a damaged snapshot
            // and its way back: then the snapshot is what lost the data, and is what the operator must see first.
            guard newestDamage != nil else { throw error }
            throw refuse(error.description)
        }
        if let newestDamage {
            guard report.lastSeq >= newestDamage.seq else {
                throw refuse("the log after it ends at seq \(report.lastSeq), the snapshot covered up to seq \(newestDamage.seq)")
            }
            for damage in damaged {
                report.warnings.append(
                    "snapshot \(damage.path) is damaged at byte \(damage.offset) (\(damage.reason)); "
                        + "recovered from \(base) and \(report.replayedRecords) later records up to seq \(report.lastSeq)")
            }
        }
        return report
    }

    /// Replays every record after `snapshotSeq`, checking that seqs follow one another with no gap.
    private static func replay(
        _ segments: [(UInt64, String)], from snapshotSeq: UInt64, into report: inout Report, repair: Bool,
        fileSystem: FileSystem, apply: (Mutation) -> Void
    ) throws(Failure) {
        var expected = snapshotSeq + 1
        report.lastSeq = snapshotSeq
        for (index, (_, path)) in segments.enumerated() {
            let isLast = index == segments.count - 1
            // A segment whose successor starts at or before the first record needed holds only records the base
            // snapshot covers: kept on disk as the way back behind an older snapshot, it is not read to start.
            // (At a million users that segment is hundreds of megabytes, most of a cold start.)
            // `specd check-data` (no repair) still reads them: it checks the whole chain.
            if repair, !isLast, segments[index + 1].0 <= snapshotSeq + 1, snapshotSeq > 0 { continue }
            let bytes: [UInt8]
            do {
                bytes = try fileSystem.read(path)
            } catch {
                throw .unreadable(error)
            }
            var offset = 0
            while offset < bytes.count {
                // The zeros reserved ahead of the records (`FileSystem.reserve`) end the segment. Cut from the last
                // one, which the log appends to next; an earlier one keeps them if the cut at its retirement did not
                // happen, and reads the same.
                if bytes[offset] == 0, LogRecord.isPadding(bytes, from: offset) {
                    if repair, isLast {
                        do {
                            try fileSystem.truncate(path, to: offset)
                        } catch {
                            throw .unreadable(error)
                        }
                    }
                    break
                }
                switch LogRecord.scan(bytes, at: offset) {
                case .record(let seq, let payload, let next):
                    if seq < expected {
                        // Already in the snapshot (or a segment kept as the way back behind it).
                        if seq > snapshotSeq { throw .corrupt(file: path, offset: offset, reason: "seq \(seq) repeats or goes backwards") }
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
                    report.replayedBytes += next - offset
                    report.lastSeq = seq
                    expected = seq + 1
                    offset = next
                case .incomplete, .damaged:
                    let tornTail =
                        isLast
                        && (LogRecord.looksUnwritten(bytes, at: offset)
                            || !LogRecord.validRecordExists(in: bytes, after: offset, minimumSeq: expected))
                    guard tornTail else {
                        throw .corrupt(file: path, offset: offset, reason: "record fails its checksum or length check")
                    }
                    report.warnings.append(
                        "torn tail in \(path) at byte \(offset): \(bytes.count - offset) bytes \(repair ? "truncated" : "would be truncated")")
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
    }
}
