/// The field names looked up on every request or response (`HTTPHeaders` notes where each first occurs as it is
/// added): a lookup by one of them reads one slot, where it compared the name with every field before it.
public enum KnownField: Int, Sendable, CaseIterable {
    case contentType
    case ifNoneMatch
    case appVersion
    case requestID
    case origin
    case authorization
    case apiKey
    case lastEventID

    /// The name in its usual case.
    public var name: String {
        switch self {
        case .contentType: "Content-Type"
        case .ifNoneMatch: "If-None-Match"
        case .appVersion: "X-App-Version"
        case .requestID: "X-Request-Id"
        case .origin: "Origin"
        case .authorization: "Authorization"
        case .apiKey: "X-API-Key"
        case .lastEventID: "Last-Event-ID"
        }
    }

    /// The known field `name` spells, in any case (RFC 9110 §5.1); `nil` for any other name. Its length and first
    /// letter pick one candidate at most, so most names are ruled out without a comparison and a known one takes
    /// one. Written out, not a table: an array literal here could be built on every call.
    public init?(_ name: String) {
        guard let found = Self.spelled(name) else { return nil }
        self = found
    }

    private static func spelled(_ name: String) -> KnownField? {
        let count = name.utf8.count
        guard count == 6 || count == 9 || count == 12 || count == 13, let first = name.utf8.first else { return nil }
        switch (count, ASCII.lower(first)) {
        case (6, UInt8(ascii: "o")): return match(name, .origin)
        case (9, UInt8(ascii: "x")): return match(name, .apiKey)
        case (12, UInt8(ascii: "c")): return match(name, .contentType)
        case (12, UInt8(ascii: "x")): return match(name, .requestID)
        case (13, UInt8(ascii: "x")): return match(name, .appVersion)
        case (13, UInt8(ascii: "i")): return match(name, .ifNoneMatch)
        case (13, UInt8(ascii: "a")): return match(name, .authorization)
        case (13, UInt8(ascii: "l")): return match(name, .lastEventID)
        default: return nil
        }
    }

    @inline(__always)
    private static func match(_ name: String, _ field: KnownField) -> KnownField? {
        HTTPHeaders.namesMatch(field.name, name) ? field : nil
    }
}

/// Where the first field of each known name sits in a field list: one byte each, packed in one word, so a header
/// list stays cheap to copy. 0 means none; 255 means past the first 254 fields, where the list is searched. One
/// word holds eight names: a ninth would shift out of it and never be found (a test holds the count).
struct KnownFieldSlots: Sendable, Equatable {
    private var packed: UInt64 = 0

    enum Slot: Equatable {
        case absent
        case at(Int)
        case beyond
    }

    func slot(_ field: KnownField) -> Slot {
        let stored = Int((packed >> UInt64(field.rawValue * 8)) & 0xFF)
        switch stored {
        case 0: return .absent
        case 255: return .beyond
        default: return .at(stored - 1)
        }
    }

    /// Notes a field of that name at `index`, unless an earlier one was noted: lookups answer the first.
    mutating func noteFirst(_ field: KnownField, at index: Int) {
        guard slot(field) == .absent else { return }
        let stored = UInt64(min(index + 1, 255))
        packed |= stored << UInt64(field.rawValue * 8)
    }
}
