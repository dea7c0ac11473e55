/// A request line and header section that passed every framing check.
public struct HTTPRequestHead: Sendable, Equatable {
    /// The fields, in one box shared by copies until one is changed. A head is copied several times per request
    /// (the parser's event, the connection, the request a handler gets) and each copy of seven fields retained
    /// and later released the method, the target and the header list: some 200 instructions a copy.
    @usableFromInline final class Storage: @unchecked Sendable {
        // Mutated only through `HTTPRequestHead.unique`, while no other head holds it: an access to one box never
        // overlaps another, so the runtime's exclusivity checks (some 75 instructions each, four reads of `headers`
        // per request) are left out.
        @exclusivity(unchecked) var method: String
        /// The target's bytes, the first `targetCount` of the `targetCapacity` at `targetBase`: a string made per
        /// request was an allocation (most targets are longer than a small string's 15 bytes), where a box the
        /// parser recycles keeps its room (`refill`). `target` makes the string for whoever asks; the router and the
        /// query read the bytes. Memory the box owns (freed in `deinit`), not an array: an array property read
        /// through a box other heads may share was retained and released around every read (`withTargetBytes`,
        /// two atomic operations a request). Written only through `HTTPRequestHead.unique`, as every field.
        @usableFromInline @exclusivity(unchecked) var targetBase: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) var targetCapacity: Int
        @usableFromInline @exclusivity(unchecked) var targetCount: Int
        /// Where the path and the query lie in the target, found once when the target is set: the request asks for
        /// its query when it is made and the router for its path, and each searched the target for `?` (and `#`)
        /// again, some 200 instructions a request.
        @exclusivity(unchecked) var bounds: TargetBounds
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var keepAlive: Bool
        @exclusivity(unchecked) var expectsContinue: Bool
        @exclusivity(unchecked) var framing: BodyFraming

        init(
            method: String, targetBytes: [UInt8], version: HTTPVersion, headers: HTTPHeaders, keepAlive: Bool, expectsContinue: Bool,
            framing: BodyFraming
        ) {
            self.method = method
            // At least one byte, so an empty target still has an allocation of its own to free.
            let base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, targetBytes.count))
            targetBase = base
            targetCapacity = max(1, targetBytes.count)
            targetCount = targetBytes.count
            bounds = targetBytes.withUnsafeBufferPointer { bytes in
                if let source = bytes.baseAddress { base.initialize(from: source, count: bytes.count) }
                return TargetBounds(of: bytes)
            }
            self.version = version
            self.headers = headers
            self.keepAlive = keepAlive
            self.expectsContinue = expectsContinue
            self.framing = framing
        }

        deinit {
            targetBase.deallocate()
        }

        func copy() -> Storage {
            Storage(
                method: method, targetBytes: Array(UnsafeBufferPointer(start: targetBase, count: targetCount)), version: version,
                headers: headers, keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing)
        }

        /// Copies `bytes` into the room the last target left, growing it only when they do not fit.
        func setTarget(_ bytes: UnsafeBufferPointer<UInt8>) {
            if targetCapacity < bytes.count {
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
                targetBase.deallocate()
                targetBase = grown
                targetCapacity = bytes.count
            }
            if let source = bytes.baseAddress { targetBase.update(from: source, count: bytes.count) }
            targetCount = bytes.count
            bounds = TargetBounds(of: bytes)
        }
    }

    /// Byte offsets in a target: the path's (a negative start when an absolute-form target has none, whose `path`
    /// is `/`) and the query's (a negative start when there is no `?`).
    struct TargetBounds: Sendable {
        let pathStart: Int
        let pathEnd: Int
        let queryStart: Int
        let queryEnd: Int

        init(of bytes: UnsafeBufferPointer<UInt8>) {
            // The first `?` or `#` in one pass: a target with neither (nearly every one) is read once, where a
            // search for each read it twice. A `#` first ends the path; the query still starts at a later `?`.
            let stop = ByteSearch.firstIndex(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), in: bytes, from: 0, to: bytes.count)
            let question = stop.flatMap { stop in
                bytes[stop] == UInt8(ascii: "?")
                    ? stop : ByteSearch.firstIndex(of: UInt8(ascii: "?"), in: bytes, from: stop + 1, to: bytes.count)
            }
            // The query runs from after the target's first `?` to the first `#` after it.
            if let question {
                queryStart = question + 1
                queryEnd = ByteSearch.firstIndex(of: UInt8(ascii: "#"), in: bytes, from: question + 1, to: bytes.count) ?? bytes.count
            } else {
                queryStart = -1
                queryEnd = -1
            }
            var start = 0
            if bytes.first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                // absolute-form (RFC 9112 §3.2.2): skip "scheme://authority".
                var index = colon + 1
                while index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
                guard let slash = bytes[index...].firstIndex(of: UInt8(ascii: "/")) else {
                    (pathStart, pathEnd) = (-1, -1)
                    return
                }
                start = slash
            }
            // The path ends at the first `?` or `#`: a `#` after the `?` belongs to the query's end, not the path's.
            // From the target's start, that is the one found above.
            pathStart = start
            pathEnd =
                start == 0
                ? stop ?? bytes.count
                : ByteSearch.firstIndex(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), in: bytes, from: start, to: bytes.count)
                    ?? bytes.count
        }
    }

    @usableFromInline var storage: Storage

    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    public var method: String {
        get { storage.method }
        set { unique.method = newValue }
    }
    /// The request target as sent (origin-form, absolute-form or `*`), made from its bytes on each read.
    public var target: String {
        get { withTargetBytes { String(decoding: $0, as: UTF8.self) } }
        set {
            let box = unique
            Array(newValue.utf8).withUnsafeBufferPointer { box.setTarget($0) }
        }
    }

    /// The target's bytes, read in place. Inlinable, so a caller's closure is specialized into it (through the
    /// generic entry point a read cost a reabstraction thunk and the array's generic accessor).
    @inlinable
    public func withTargetBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let box = storage
        return body(UnsafeBufferPointer(start: box.targetBase, count: box.targetCount))
    }
    public var version: HTTPVersion {
        get { storage.version }
        set { unique.version = newValue }
    }
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &unique.headers }
        set { unique.headers = newValue }
    }
    /// A known field's first value, read in the box: `headers[field]` copied the list out first (a retain and a
    /// release of it, for each of the three or four fields a request's handling asks for).
    public subscript(field: KnownField) -> String? { storage.headers[field] }
    /// Whether the connection may serve another request after this one (RFC 9112 §9.3).
    public var keepAlive: Bool {
        get { storage.keepAlive }
        set { unique.keepAlive = newValue }
    }
    /// `Expect: 100-continue` was sent with a body to come (RFC 9110 §10.1.1).
    public var expectsContinue: Bool {
        get { storage.expectsContinue }
        set { unique.expectsContinue = newValue }
    }
    public var framing: BodyFraming {
        get { storage.framing }
        set { unique.framing = newValue }
    }

    public init(
        method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        keepAlive: Bool = true, expectsContinue: Bool = false, framing: BodyFraming = .none
    ) {
        storage = Storage(
            method: method, targetBytes: Array(target.utf8), version: version, headers: headers, keepAlive: keepAlive,
            expectsContinue: expectsContinue, framing: framing)
    }

    /// A head whose target is these bytes (the parser's: visible ASCII).
    init(
        method: String, target: UnsafeBufferPointer<UInt8>, version: HTTPVersion, headers: HTTPHeaders, keepAlive: Bool,
        expectsContinue: Bool, framing: BodyFraming
    ) {
        storage = Storage(
            method: method, targetBytes: [UInt8](target), version: version, headers: headers, keepAlive: keepAlive,
            expectsContinue: expectsContinue, framing: framing)
    }

    /// The header list of a head the parser kept from its last request, emptied (its room kept) and taken out of
    /// the box, when no other head holds that box any more; `nil` while one does. A parser fills it and gives it
    /// back to the same box (`refill`): per request, the box and the list were two allocations and their frees.
    mutating func takeHeadersIfUnshared() -> HTTPHeaders? {
        guard isKnownUniquelyReferenced(&storage) else { return nil }
        var headers = HTTPHeaders()
        swap(&headers, &storage.headers)
        headers.removeAll(keepingCapacity: true)
        return headers
    }

    /// Whether no other head holds this head's box.
    mutating func isUnshared() -> Bool { isKnownUniquelyReferenced(&storage) }

    /// This head's box, already unshared (`takeHeadersIfUnshared` returned its list), filled with the next request.
    mutating func refill(
        method: String, target: UnsafeBufferPointer<UInt8>, version: HTTPVersion, headers: consuming HTTPHeaders, keepAlive: Bool,
        expectsContinue: Bool, framing: BodyFraming
    ) {
        let box = refill(method: method, target: target, version: version, keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing)
        box.headers = headers
    }

    /// The same with a repeated section's list (`RepeatedFieldSection`), lent: the box already holds it when its last
    /// request had the same section, and storing it again retained the new reference and released the old, the
    /// same one.
    mutating func refill(
        method: String, target: UnsafeBufferPointer<UInt8>, version: HTTPVersion, repeatedHeaders headers: borrowing HTTPHeaders,
        keepAlive: Bool, expectsContinue: Bool, framing: BodyFraming
    ) {
        let box = refill(method: method, target: target, version: version, keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing)
        if !box.headers.isSameList(as: headers) { box.headers = copy headers }
    }

    /// Everything but the fields; the box, for them.
    private mutating func refill(
        method: String, target: UnsafeBufferPointer<UInt8>, version: HTTPVersion, keepAlive: Bool, expectsContinue: Bool, framing: BodyFraming
    ) -> Storage {
        let box = unique
        box.method = method
        // Into the room the last target left.
        box.setTarget(target)
        box.version = version
        box.keepAlive = keepAlive
        box.expectsContinue = expectsContinue
        box.framing = framing
        return box
    }

    public static func == (lhs: HTTPRequestHead, rhs: HTTPRequestHead) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.method == rhs.method && lhs.withTargetBytes({ left in rhs.withTargetBytes { left.elementsEqual($0) } })
                && lhs.version == rhs.version && lhs.headers == rhs.headers
                && lhs.keepAlive == rhs.keepAlive && lhs.expectsContinue == rhs.expectsContinue && lhs.framing == rhs.framing)
    }

    /// The path part of the target, still percent-encoded; absolute-form targets are reduced to their path.
    /// Found on the target's bytes in place: the target is ASCII (the parser refused anything else), and both
    /// Character iteration and walking the UTF-8 view index by index were visible costs per request.
    public var path: Substring {
        let (start, end) = pathBounds()
        guard start >= 0 else { return "/" }
        return slice(start, end)
    }

    /// The raw query string after `?`, if any.
    public var query: Substring? {
        // Found when the target was set: a target without `?` (most) makes no string.
        let bounds = storage.bounds
        return bounds.queryStart >= 0 ? slice(bounds.queryStart, bounds.queryEnd) : nil
    }

    /// Byte offsets of the path in the target; a negative start when an absolute-form target has no path.
    private func pathBounds() -> (Int, Int) {
        let bounds = storage.bounds
        return (bounds.pathStart, bounds.pathEnd)
    }

    /// Where the path (as `path` has it) lies in the target's bytes (`withTargetBytes`), `nil` when an
    /// absolute-form target has none (`path` is then `/`). For a caller that only reads the path's bytes, in place.
    public var pathRange: Range<Int>? {
        let bounds = storage.bounds
        return bounds.pathStart >= 0 ? bounds.pathStart..<bounds.pathEnd : nil
    }

    /// Where the path (as `path` has it) lies in the target's bytes, `nil` when an absolute-form target has none
    /// (`path` is then `/`). For a caller that only reads the path's bytes, in place: the router, on every request,
    /// where making the substring cost some 650 instructions, most of it finding its two indices again.
    public static func pathRange(in target: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let bounds = TargetBounds(of: target)
        return bounds.pathStart >= 0 ? bounds.pathStart..<bounds.pathEnd : nil
    }

    /// The target between two byte offsets that fall on ASCII delimiters (or the ends), so on character boundaries.
    private func slice(_ start: Int, _ end: Int) -> Substring {
        // The target made once: each read of `target` makes it anew.
        let target = target
        let utf8 = target.utf8
        return target[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
    }
}
