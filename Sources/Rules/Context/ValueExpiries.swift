/// When a user's expiring values stop counting (docs/api.md, "Expiring values"): an attribute, flag or segment
/// written with `ttl` / `expiresAt` reads as missing from its instant on.
///
/// One array of entries, searched linearly: most users have no expiring value at all, and an empty array costs a
/// context one word, where a map per kind would cost three. Each entry names a value the context holds (the
/// reducer keeps it so: removing, clearing or rewriting a value without an expiry removes its entry).
/// Keys are compared as UTF-8 bytes, as in the context itself.
public struct ValueExpiries: Sendable, Equatable {
    /// Which part of the context an entry's key names. The raw value is the snapshot's encoding.
    public enum Kind: UInt8, Sendable, CaseIterable {
        case attribute = 0
        case flag = 1
        case segment = 2

        /// The name in the context JSON (`expires.attributes`, ...).
        public var section: String {
            switch self {
            case .attribute: return "attributes"
            case .flag: return "flags"
            case .segment: return "segments"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var kind: Kind
        public var key: String
        /// The first instant at which the value reads as missing.
        public var at: Instant

        public init(kind: Kind, key: String, at: Instant) {
            self.kind = kind
            self.key = key
            self.at = at
        }

        /// The context input this entry's value is, for matching against what a spec reads.
        public var input: ContextInput {
            switch kind {
            case .attribute: return .attribute(key)
            case .flag: return .flag(key)
            case .segment: return .segments
            }
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.kind == rhs.kind && lhs.key.bytesEqual(rhs.key) && lhs.at == rhs.at
        }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    public init(_ entries: [Entry]) {
        for entry in entries { self[entry.kind, entry.key] = entry.at }
    }

    @inlinable public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    private func position(_ kind: Kind, _ key: String) -> Int? {
        entries.firstIndex { $0.kind == kind && sameUTF8($0.key, key) }
    }

    /// The expiry of one value; setting `nil` removes it.
    public subscript(kind: Kind, key: String) -> Instant? {
        get { position(kind, key).map { entries[$0].at } }
        set {
            let found = position(kind, key)
            switch (found, newValue) {
            case (let index?, let at?): entries[index].at = at
            case (let index?, nil): entries.remove(at: index)
            case (nil, let at?): entries.append(Entry(kind: kind, key: key, at: at))
            case (nil, nil): break
            }
        }
    }

    /// Forgets every expiry of one kind (a `clear` of that scope).
    public mutating func removeAll(_ kind: Kind) {
        entries.removeAll { $0.kind == kind }
    }

    public mutating func removeAll() { entries = [] }

    /// Whether any value has expired at `now` (an expiry is inclusive: at its instant the value is gone).
    @inlinable
    public func hasExpired(at now: Instant) -> Bool {
        guard !entries.isEmpty else { return false }
        return entries.contains { $0.at <= now }
    }

    /// Removes the entries expired at `now` and returns them.
    mutating func removeExpired(at now: Instant) -> [Entry] {
        let expired = entries.filter { $0.at <= now }
        entries.removeAll { $0.at <= now }
        return expired
    }

    /// The entries still pending after `now`, earliest first.
    public func pending(after now: Instant) -> [Entry] {
        entries.filter { $0.at > now }.sorted { $0.at < $1.at }
    }

    /// Entries in a stable order (kind, then key bytes), for output and snapshots.
    public var sorted: [Entry] {
        entries.sorted {
            $0.kind.rawValue != $1.kind.rawValue ? $0.kind.rawValue < $1.kind.rawValue : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
    }

    /// The order entries were added in carries no meaning.
    public static func == (lhs: ValueExpiries, rhs: ValueExpiries) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.kind, $0.key] == $0.at }
    }
}
