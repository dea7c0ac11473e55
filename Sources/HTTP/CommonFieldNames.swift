/// The field names most clients send, kept as string literals: a parsed name spelled exactly like one of them is
/// that literal, so no string is built for it (about 170 instructions per name, four or more names per request).
/// Names keep the case they arrived in either way: only exact spellings are listed, in the usual case and in lower
/// case (what HTTP/2 gateways and Node's `fetch` send). Any other name is built from its bytes.
enum CommonFieldNames {
    static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let known = known(bytes) { return known }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The listed literal spelled exactly as `bytes`, if any. The length picks a few candidates; a candidate's
    /// first differing byte (nearly always its first) rules it out. Written out, not a table: an array literal
    /// here could be built on every call.
    static func known(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 4: return pair(bytes, "Host", "host")
        case 6: return pair(bytes, "Accept", "accept") ?? pair(bytes, "Origin", "origin") ?? pair(bytes, "Expect", "expect")
        case 10: return pair(bytes, "User-Agent", "user-agent") ?? pair(bytes, "Connection", "connection")
        case 12: return pair(bytes, "Content-Type", "content-type")
        case 13:
            return pair(bytes, "X-App-Version", "x-app-version") ?? pair(bytes, "Authorization", "authorization")
                ?? pair(bytes, "If-None-Match", "if-none-match") ?? pair(bytes, "Last-Event-ID", "last-event-id")
        case 14: return pair(bytes, "Content-Length", "content-length")
        case 15: return pair(bytes, "Accept-Encoding", "accept-encoding") ?? pair(bytes, "Accept-Language", "accept-language")
        case 17: return pair(bytes, "Transfer-Encoding", "transfer-encoding")
        default: return nil
        }
    }

    /// One name in its usual case and in lower case.
    @inline(__always)
    private static func pair(_ bytes: UnsafeBufferPointer<UInt8>, _ usual: String, _ lower: String) -> String? {
        if spells(bytes, usual) { return usual }
        if spells(bytes, lower) { return lower }
        return nil
    }

    static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: String) -> Bool {
        let same = literal.utf8.withContiguousStorageIfAvailable { stored -> Bool in
            guard stored.count == bytes.count else { return false }
            for index in 0..<stored.count where stored[index] != bytes[index] { return false }
            return true
        }
        return same ?? literal.utf8.elementsEqual(bytes)
    }
}
