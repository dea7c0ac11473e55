import Foundation
import Rules

/// Reads one user's records and base context from the retained files, read-only, while the daemon writes
/// (docs/api.md, "History").
///
/// What is reachable: compaction keeps the newest snapshot, the one before it, and every segment holding a record
/// after the older one (README, "Data and durability"). So a user's state can be rebuilt for every seq after the
/// oldest retained snapshot — or from seq 1 while the log from its first record is still on disk — and for no seq
/// before that: those records are gone for good.
///
/// Cost: one pass over the retained segments (each streamed in 1 MiB pieces, only this user's records are
/// checksummed and decoded) and, when the base is a snapshot, one pass over that snapshot (only this user's entry
/// is decoded). No index is kept: a page of history reads the whole retained log, so callers run it off the
/// event loops.
struct HistoryReader {
    let directory: String
    let fileSystem: FileSystem
    let policy: HistoryPolicy
    /// The segment the log writes and where its written records end, asked once the files are listed. The log
    /// writes into zeros it reserved ahead, so a record being written now is not cut short at the file's end, as
    /// an append was: it would read as a whole record failing its checksum. So the live segment is read up to the
    /// records written, whose bytes are all in place. `nil`: no log writes these files (they read whole).
    var liveSegment: (@Sendable () -> (path: String, bytes: Int)?)? = nil
    /// The pieces segments are read in.
    static let chunkSize = 1 << 20

    /// The user's log. With `baseBefore`, the base is the newest one before that seq (the nearest snapshot);
    /// without, the oldest one, so every reachable record is listed. Records run to the end of the log either way
    /// (an erase after the seq asked about must be seen). Retries when compaction removed a file between listing
    /// and reading it.
    func userLog<Visitor: UserLogVisitor>(
        of user: String, baseBefore limit: UInt64? = nil, into visitor: inout Visitor
    ) throws(HistoryReadError) -> UserLog {
        var attempt = 0
        while true {
            do throws(HistoryReadError) {
                return try read(user, baseBefore: limit, into: &visitor)
            } catch {
                attempt += 1
                guard case .unreadable(let failure) = error, failure.code == ENOENT, attempt < 3 else { throw error }
            }
        }
    }

    private func read<Visitor: UserLogVisitor>(
        _ user: String, baseBefore limit: UInt64?, into visitor: inout Visitor
    ) throws(HistoryReadError) -> UserLog {
        let found: (snapshots: [(UInt64, String)], segments: [(UInt64, String)], temporary: [String])
        do {
            found = try Recovery.files(in: directory, fileSystem: fileSystem)
        } catch {
            switch error {
            case .unreadable(let failure): throw .unreadable(failure)
            case .corrupt(let file, let offset, let reason): throw .corrupt(file: file, offset: offset, reason: reason)
            }
        }
        // Bases, newest first: every snapshot, then "nothing" while the log still starts at its first record.
        var bases: [(seq: UInt64, path: String?)] = found.snapshots.map { ($0.0, $0.1) }
        if found.segments.first?.0 == 1 || (found.segments.isEmpty && found.snapshots.isEmpty) { bases.append((0, nil)) }
        guard let oldestBase = bases.last else { throw .corrupt(file: directory, offset: 0, reason: "no snapshot and no log from seq 1") }
        let target = Array(user.utf8)
        // The base a read starts from: the nearest before `limit`, or the oldest for a full listing; a snapshot
        // that does not read back whole is passed over for the next older base, as recovery does.
        var candidates = bases
        if let limit { candidates = bases.filter { $0.seq < limit } }
        if limit == nil || candidates.isEmpty { candidates = [oldestBase] }
        var base: (seq: UInt64, context: UserContext?)?
        var lastFailure: HistoryReadError?
        for candidate in candidates {
            guard let path = candidate.path else {
                base = (0, nil)
                break
            }
            do throws(HistoryReadError) {
                base = (candidate.seq, try SnapshotLookup.context(of: target, in: path, fileSystem: fileSystem))
                break
            } catch {
                lastFailure = error
            }
        }
        guard let base else { throw lastFailure ?? .corrupt(file: directory, offset: 0, reason: "no readable base") }
        visitor.start(baseSeq: base.seq, base: base.context)
        var replay = Replay(state: base.context, policy: policy)
        var lastSeq = base.seq
        // Asked after the listing: if the log moved on to a segment not listed, the last one listed is finished.
        let live = liveSegment?()
        for (index, segment) in found.segments.enumerated() {
            let next = index + 1 < found.segments.count ? found.segments[index + 1].0 : nil
            // Only segments that can hold a record after the base.
            if let next, next <= base.seq + 1 { continue }
            let limit = live.flatMap { ($0.path as NSString).lastPathComponent == (segment.1 as NSString).lastPathComponent ? $0.bytes : nil }
            try scan(segment.1, isLast: next == nil, limit: limit, user: target, after: base.seq, lastSeq: &lastSeq) { record in
                replay.apply(record, to: &visitor)
            }
        }
        return UserLog(baseSeq: base.seq, base: base.context, oldestSeq: oldestBase.seq + 1, lastSeq: lastSeq)
    }

    /// Streams one segment, keeping the user's records after the base. A record cut short at the end of the
    /// last segment is one being written right now, not damage; a whole record that fails its checksum is.
    private func scan(
        _ path: String, isLast: Bool, limit: Int?, user: [UInt8], after base: UInt64, lastSeq: inout UInt64,
        _ found: (UserLog.Record) -> Void
    ) throws(HistoryReadError) {
        var pending: [UInt8] = []
        var consumed = 0
        var failure: HistoryReadError?
        /// Read up to here: the end of the records written, in the live segment.
        var remaining = limit ?? Int.max
        /// Past the records, in the zeros reserved after them: what follows must be zeros too.
        var inPadding = false
        do {
            try fileSystem.readChunks(path, chunkSize: Self.chunkSize) { whole in
                let chunk = UnsafeRawBufferPointer(rebasing: whole[..<min(whole.count, remaining)])
                remaining -= chunk.count
                if inPadding {
                    if !LogRecord.isPadding(chunk, from: 0) {
                        failure = .corrupt(file: path, offset: consumed, reason: "bytes after the zeros that end the records")
                    }
                    consumed += chunk.count
                    return failure == nil && remaining > 0
                }
                pending.append(contentsOf: chunk)
                let offset = pending.withUnsafeBytes { bytes -> Int in
                    var offset = 0
                    while true {
                        switch LogRecordFrame.read(bytes, at: offset) {
                        case .incomplete:
                            return offset
                        case .padding:
                            guard LogRecord.isPadding(bytes, from: offset) else {
                                failure = .corrupt(file: path, offset: consumed + offset, reason: "a record header of zeros")
                                return offset
                            }
                            inPadding = true
                            return bytes.count
                        case .damaged:
                            failure = .corrupt(file: path, offset: consumed + offset, reason: "record length out of range")
                            return offset
                        case .frame(let seq, let payload, let next):
                            if seq > base, LogRecordFrame.payload(bytes, payload, startsWithUser: user) {
                                guard LogRecordFrame.checksumMatches(bytes, frameStart: offset, end: next),
                                    let mutation = try? MutationCodec.decode(pending, from: payload.lowerBound, to: payload.upperBound)
                                else {
                                    failure = .corrupt(file: path, offset: consumed + offset, reason: "record fails its checksum")
                                    return offset
                                }
                                found(UserLog.Record(seq: seq, mutation: mutation))
                            }
                            lastSeq = max(lastSeq, seq)
                            offset = next
                        }
                    }
                }
                // What is left is less than one record: moving it down is cheap.
                pending.removeFirst(offset)
                consumed += offset
                return failure == nil && remaining > 0
            }
        } catch {
            throw .unreadable(error)
        }
        if let failure { throw failure }
        // Fewer zeros than a header at the end are the reserved space too.
        if !pending.isEmpty, !isLast, !LogRecord.isPadding(pending, from: 0) {
            throw .corrupt(file: path, offset: consumed, reason: "segment ends inside a record")
        }
    }
}

/// The user's state carried from record to record while a read streams the log.
private struct Replay {
    var state: UserContext?
    let policy: HistoryPolicy

    mutating func apply<Visitor: UserLogVisitor>(_ record: UserLog.Record, to visitor: inout Visitor) {
        let before = state
        if let next = try? Reducer.apply(record.mutation, to: state, policy: policy, limits: .unlimited) { state = next.state }
        visitor.visit(record, before: before, after: state)
    }
}
