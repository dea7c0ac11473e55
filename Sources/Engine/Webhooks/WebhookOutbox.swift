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
        try fileSystem.writeAll(fd, record.encoded(), path: path)
        appended += 1
        if case .settled = record { settledSinceCompaction += 1 }
    }

    /// Fsyncs the file behind `descriptor` (read as `fd` under the dispatcher's lock). The dispatcher keeps the
    /// descriptor open meanwhile: no compaction runs during a sync.
    func syncDescriptor(_ descriptor: Int32) throws(IOError) {
        try fileSystem.fsync(descriptor, path: path)
    }

    /// Whether settled records are enough of the file that rewriting it pays.
    func worthCompacting(waiting: Int) -> Bool { settledSinceCompaction >= max(1024, waiting * 2) }

    /// Replaces the file with the waiting deliveries: a temporary file written and fsynced, renamed over, the
    /// directory fsynced, so a crash leaves either the old file or the new one. A settled marker for the highest id
    /// keeps ids increasing across restarts even when nothing waits.
    func rewrite(_ waiting: [WebhookDelivery], highestID: UInt64) throws(IOError) {
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
        fileSystem.close(out)
        try fileSystem.rename(temporary, path)
        try fileSystem.fsyncDirectory(directory)
        if fd >= 0 { fileSystem.close(fd) }
        fd = try fileSystem.openForAppend(path)
        settledSinceCompaction = 0
    }

    func close() {
        if fd >= 0 { fileSystem.close(fd) }
        fd = -1
    }
}
