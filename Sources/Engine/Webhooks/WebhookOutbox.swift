import Rules
import Store

/// The webhook outbox on disk: one append-only file of `OutboxRecord`s in its own directory, through the store's
/// `FileSystem` so tests can fail any call. A delivery's record is written before the write that caused it is
/// answered, so it survives kill -9 (the bytes are in the kernel once `write` returns); the dispatcher decides when
/// they are fsynced (`syncDescriptor`), outside its lock. Rewritten to the waiting deliveries only at start and when
/// settled records outnumber them. Not thread-safe: the dispatcher calls it under its lock, except
/// `syncDescriptor`, which touches no state.
final class WebhookOutbox {
    let directory: String
    let path: String
    private let fileSystem: FileSystem
    private(set) var fd: Int32 = -1
    private(set) var settledSinceCompaction = 0
    /// Records written since the outbox was opened (compaction does not reset it).
    private(set) var appended: UInt64 = 0
    /// While a compaction writes its new file outside the lock, records appended meanwhile are kept here too, to be
    /// copied into the new file before it replaces the old one.
    private var captured: [UInt8]?
    private var capturedSettled = 0

    /// What start-up found in the file.
    struct Recovered {
        var waiting: [WebhookDelivery] = []
        var nextID: UInt64 = 1
        var warnings: [String] = []
    }

    init(directory: String, fileSystem: FileSystem) {
        self.directory = directory
        path = directory + "/outbox"
        self.fileSystem = fileSystem
    }

    /// Reads what the last run left, keeps every waiting delivery, and rewrites the file to just those. A damaged
    /// file is never silently dropped: the good records before the damage are kept, and the file itself is kept
    /// aside (`outbox.damaged-<ms>`) unless only its tail was torn by a crash mid-write.
    func open(now: Instant) throws(IOError) -> Recovered {
        try? fileSystem.createDirectory(directory)
        var recovered = Recovered()
        if fileSystem.size(path) != nil {
            let bytes = try fileSystem.read(path)
            let (records, failure) = OutboxRecord.decodeAll(bytes)
            var waiting: [UInt64: WebhookDelivery] = [:]
            var highest: UInt64 = 0
            for record in records {
                switch record {
                case .enqueued(let delivery):
                    waiting[delivery.id] = delivery
                    highest = max(highest, delivery.id)
                case .settled(let id, _):
                    waiting[id] = nil
                    highest = max(highest, id)
                }
            }
            recovered.waiting = waiting.values.sorted { $0.id < $1.id }
            recovered.nextID = highest + 1
            switch failure {
            case .none: break
            case .truncated(let offset):
                recovered.warnings.append("webhook outbox \(path): torn record at offset \(offset) dropped (a write cut short)")
            case .checksumMismatch(let offset), .malformed(let offset):
                let aside = "\(path).damaged-\(now.milliseconds)"
                try fileSystem.rename(path, aside)
                recovered.warnings.append(
                    "webhook outbox \(path): damaged record at offset \(offset); \(records.count) records before it kept, the file moved to \(aside)")
            }
        }
        try rewrite(recovered.waiting, highestID: recovered.nextID - 1)
        return recovered
    }

    func append(_ record: OutboxRecord) throws(IOError) {
        let bytes = record.encoded()
        try fileSystem.writeAll(fd, bytes, path: path)
        appended += 1
        if case .settled = record { settledSinceCompaction += 1 }
        if captured != nil {
            captured! += bytes
            if case .settled = record { capturedSettled += 1 }
        }
    }

    // MARK: - Compaction in three steps, the slow one outside the dispatcher's lock

    /// A compaction in progress: the new file, open, written and fsynced with the waiting deliveries.
    struct Compaction {
        let descriptor: Int32
        let temporary: String
    }

    /// Step 1, under the lock: from now on appends are also captured for the new file.
    func beginCompaction() {
        captured = []
        capturedSettled = 0
    }

    /// Step 2, outside the lock (touches no state): the waiting deliveries, as of step 1, written to a temporary
    /// file and fsynced. A settled marker for the highest id keeps ids increasing across restarts even when
    /// nothing waits.
    func writeCompacted(_ waiting: [WebhookDelivery], highestID: UInt64) throws(IOError) -> Compaction {
        let temporary = path + ".tmp"
        var bytes: [UInt8] = []
        for delivery in waiting { bytes += OutboxRecord.enqueued(delivery).encoded() }
        if waiting.last.map({ $0.id < highestID }) ?? (highestID > 0) { bytes += OutboxRecord.settled(id: highestID, .delivered).encoded() }
        let out = try fileSystem.openForWrite(temporary)
        do throws(IOError) {
            try fileSystem.writeAll(out, bytes, path: temporary)
            try fileSystem.fsync(out, path: temporary)
        } catch {
            fileSystem.close(out)
            throw error
        }
        return Compaction(descriptor: out, temporary: temporary)
    }

    /// Step 3, under the lock: what was appended meanwhile is copied and fsynced (a few records), then the new file
    /// replaces the old one. A crash at any point leaves either the old file or the new one, each complete. The
    /// caller fsyncs the directory afterwards, outside the lock.
    func finishCompaction(_ compaction: Compaction) throws(IOError) {
        defer { captured = nil }
        do throws(IOError) {
            if let captured, !captured.isEmpty {
                try fileSystem.writeAll(compaction.descriptor, captured, path: compaction.temporary)
                try fileSystem.fsync(compaction.descriptor, path: compaction.temporary)
            }
        } catch {
            fileSystem.close(compaction.descriptor)
            throw error
        }
        fileSystem.close(compaction.descriptor)
        try fileSystem.rename(compaction.temporary, path)
        if fd >= 0 { fileSystem.close(fd) }
        fd = try fileSystem.openForAppend(path)
        settledSinceCompaction = capturedSettled
    }

    func abortCompaction(_ compaction: Compaction?) {
        captured = nil
        if let compaction { fileSystem.close(compaction.descriptor) }
    }

    func syncDirectory() throws(IOError) {
        try fileSystem.fsyncDirectory(directory)
    }

    /// Fsyncs the file behind `descriptor` (read as `fd` under the dispatcher's lock). The dispatcher keeps the
    /// descriptor open meanwhile: no compaction runs during a sync.
    func syncDescriptor(_ descriptor: Int32) throws(IOError) {
        try fileSystem.fsync(descriptor, path: path)
    }

    /// Whether settled records are enough of the file that rewriting it pays.
    func worthCompacting(waiting: Int) -> Bool { settledSinceCompaction >= max(1024, waiting * 2) }

    /// Replaces the file with the waiting deliveries in one go (at start, before anything else runs).
    func rewrite(_ waiting: [WebhookDelivery], highestID: UInt64) throws(IOError) {
        beginCompaction()
        try finishCompaction(try writeCompacted(waiting, highestID: highestID))
        try syncDirectory()
    }

    func close() {
        if fd >= 0 { fileSystem.close(fd) }
        fd = -1
    }
}
