import HTTPServer
import Rules

extension StreamHub {
    /// A reference, so the fan-out reads one pointer per stream and updates `lastSeen` in place; a struct in the
    /// table was copied out for every stream an event went to (a retain and release for each of its fields).
    /// Touched only under the hub's lock.
    final class Subscriber {
        let stream: EventStream
        let user: String?
        let flags: Set<ByteKey>?
        /// The filter's flag when it names exactly one (`?flags=name`, the usual filter): compared by its bytes
        /// (`takesFlag`), where the set's lookup hashed the event's key for every stream of every delivery (a
        /// SipHash, some 300 instructions of a delivery's 1 800).
        let onlyFlag: ByteKey?
        let types: Set<String>?
        /// `?include=context`: also `context` events after each write.
        let includeContext: Bool
        /// An OFREP event stream: every event becomes one `refetchEvaluation` notification.
        let refetchOnly: Bool
        /// `X-App-Version` at subscription (`nil`: none): the stream hears flag answers evaluated for it.
        let appVersion: String?
        /// The value of each flag as this stream last saw it: flag events go out only on a real change. Only the
        /// flags the stream takes flag events for: the clock re-sends whatever differs from it, so a flag a filter
        /// keeps out must not sit here with a value the stream was never sent.
        var lastSeen: [ByteKey: JSONValue] {
            get {
                guard let onlyFlag, let onlyFlagSeen else { return seenByFlag }
                var all = seenByFlag
                all[onlyFlag] = onlyFlagSeen
                return all
            }
            set {
                guard let onlyFlag else {
                    seenByFlag = newValue
                    return
                }
                onlyFlagSeen = newValue[onlyFlag]
                var others = newValue
                others[onlyFlag] = nil
                seenByFlag = others
            }
        }
        /// `lastSeen` kept in two parts: the one-flag filter's flag (the usual filter) in a field of its own, which
        /// every delivery reads and writes (through the map, some 250 instructions of a delivery's 1 100), and any
        /// other flag in the map. Unchecked for exclusivity: read and written only under the hub's lock, one access
        /// at a time (the runtime's check of each access was some 80 instructions of every delivery).
        @exclusivity(unchecked) private var onlyFlagSeen: JSONValue?
        @exclusivity(unchecked) private var seenByFlag: [ByteKey: JSONValue] = [:]

        init(
            stream: EventStream, user: String?, flags: Set<ByteKey>?, types: Set<String>?, includeContext: Bool, refetchOnly: Bool,
            appVersion: String?, lastSeen: [ByteKey: JSONValue]
        ) {
            self.stream = stream
            self.user = user
            self.flags = flags
            onlyFlag = flags?.count == 1 ? flags?.first : nil
            self.types = types
            self.includeContext = includeContext
            self.refetchOnly = refetchOnly
            self.appVersion = appVersion
            self.lastSeen = lastSeen
        }

        /// `lastSeen.updateValue(value, forKey: key)`: the value seen before, now `value`. The one-flag filter's flag
        /// is swapped in its field: the map hashed the key for every stream of every delivery.
        func updateLastSeen(_ value: JSONValue, forKey key: ByteKey) -> JSONValue? {
            if let onlyFlag, onlyFlag == key {
                defer { onlyFlagSeen = value }
                return onlyFlagSeen
            }
            return seenByFlag.updateValue(value, forKey: key)
        }

        /// Whether the stream's flag filter lets events of flag `key` through (no filter lets every flag through).
        func takesFlag(_ key: ByteKey) -> Bool {
            if let onlyFlag { return onlyFlag == key }
            return flags?.contains(key) ?? true
        }
    }
}
