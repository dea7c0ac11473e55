import Engine
import HTTP
import Rules

extension StreamHub {
    /// One event of the resume window (`Options.retainEvents`, `retainBytes`, `retainFor`), replayed to a stream
    /// that reconnects with a `Last-Event-ID` inside it.
    struct Retained {
        let id: EventID
        let user: String?
        let type: String
        let flag: String?
        /// For flag events, the value sent (replays update the stream's last seen value).
        var value: JSONValue?
        /// For flag events, the app version the answer was evaluated for.
        let appVersion: String?
        /// The SSE bytes. Emptied when the event leaves the window: the array's slots are reclaimed in bulk, the
        /// bytes at once. Empty too while `pending` holds an event not yet encoded.
        var bytes: [UInt8]
        /// A flag change or a trigger's firing is encoded only when a stream takes it, live or on a resume: most
        /// writes' events are heard by no stream, and encoding each one cost more than the rest of publishing it.
        var pending: DomainEvent?
        /// The bytes' length, known before they are made: what the window's byte bound counts.
        let size: Int
        let at: MonotonicInstant

        init(
            id: EventID, user: String?, type: String, flag: String?, value: JSONValue?, appVersion: String?, bytes: [UInt8],
            pending: DomainEvent? = nil, size: Int? = nil, at: MonotonicInstant
        ) {
            self.id = id
            self.user = user
            self.type = type
            self.flag = flag
            self.value = value
            self.appVersion = appVersion
            self.bytes = bytes
            self.pending = pending
            self.size = size ?? bytes.count
            self.at = at
        }

        /// Its SSE bytes, made now if they are still pending.
        func encoded(scratch: inout [UInt8]) -> [UInt8] {
            guard let pending else { return bytes }
            return StreamHub.eventBytes(id: id, pending, scratch: &scratch)
        }
    }
}
