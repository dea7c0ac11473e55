import HTTP
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A route the router tries before it matches the path against every pattern: the requests that come most, `GET
/// /v1/users/{user}/flags/{key}` (the read apps poll) and `POST /v1/users/{user}/events/{event}` (a donation). For a
/// read whose answer the answer cache holds, the general way cost more than the answer: the path's segments
/// bounded and each candidate pattern tried, a parameter list built, set on the request and freed. Here the path is
/// matched against the route's own pattern in one pass, and the handler is given the two parameters as they decode.
///
/// The route answers what it would answer the general way (its handler is the same, with its parameters handed
/// over rather than read from the request); the router sends a request the general way when no quick route
/// matches, or it carries a query, or falls under CORS (see `Router.answerQuickly`).
///
/// Built when routes are added (before the server starts) and only read afterwards. A class: the router reaches one
/// per request, and a reference is one retain where a struct's arrays and closure were each retained.
final class QuickRoute: Sendable {
    typealias Answer = @Sendable (_ request: borrowing Request, _ parameters: (String, String), _ sink: ResponseSink) -> Void

    /// A run of the pattern's text between parameters, slashes included (`/v1/users/`, `/flags/`): its bytes as a span
    /// of `literals`; or a parameter (`count` 0), which runs to the next `/` or the path's end.
    private struct Piece: Sendable {
        let isParameter: Bool
        let start: Int
        let count: Int
    }

    /// The route's index in the router (`Router.routes`): its scope and its metrics are the route's own.
    let route: Int
    let method: String
    let answer: Answer
    private let pieces: [Piece]
    private let literals: [UInt8]

    /// `nil` unless the pattern has exactly two parameters (what `Answer` takes).
    init?(route: Int, method: String, segments: [Router.Segment], answer: @escaping Answer) {
        var pieces: [Piece] = []
        var literals: [UInt8] = []
        var run = 0
        for segment in segments {
            literals.append(UInt8(ascii: "/"))
            switch segment {
            case .literal(let bytes):
                literals += bytes
            case .parameter:
                pieces.append(Piece(isParameter: false, start: run, count: literals.count - run))
                pieces.append(Piece(isParameter: true, start: 0, count: 0))
                run = literals.count
            }
        }
        if literals.count > run { pieces.append(Piece(isParameter: false, start: run, count: literals.count - run)) }
        guard pieces.filter(\.isParameter).count == 2 else { return nil }
        self.route = route
        self.method = method
        self.answer = answer
        self.pieces = pieces
        self.literals = literals
    }

    /// The two parameters' values, percent-decoded as the router decodes them, when `path` matches the pattern: each
    /// segment after a `/`, literals byte for byte, parameters non-empty (what `RouteTable.matches` asks). `nil` when
    /// it does not match, or a parameter is not valid percent-encoded UTF-8 (the general way answers that 400).
    func parameters(in path: UnsafeBufferPointer<UInt8>) -> (String, String)? {
        guard let base = path.baseAddress else { return nil }
        let end = path.count
        // From the first `/`: the general match takes what precedes it for no segment (`Router.segmentBounds`). A
        // target the parser accepts starts there anyway; a request made in process may not.
        var index = 0
        while index < end, base[index] != UInt8(ascii: "/") { index += 1 }
        // Two locals, not an array: an array of the ranges was an allocation per read.
        var first: Range<Int>?
        var second: Range<Int>?
        // Whether either parameter holds a `%`: if not, the decoder would make each the string of its bytes as they
        // are (`String(decoding:)`), so that is made here, without the decoder looking for a `%` again.
        var escaped = false
        // Walked through raw pointers: indexed through the buffers, every byte's bounds check showed in a read's cost.
        let matched = literals.withUnsafeBufferPointer { literals -> Bool in
            for piece in pieces {
                let start = index
                if piece.isParameter {
                    while index < end, base[index] != UInt8(ascii: "/") {
                        escaped = escaped || base[index] == UInt8(ascii: "%")
                        index += 1
                    }
                    guard index > start else { return false }
                    if first == nil { first = start..<index } else { second = start..<index }
                } else {
                    guard end - start >= piece.count,
                        piece.count == 0 || memcmp(base + start, literals.baseAddress! + piece.start, piece.count) == 0
                    else { return false }
                    index += piece.count
                }
            }
            return index == end
        }
        guard matched, let first, let second else { return nil }
        guard escaped else {
            return (
                String(decoding: UnsafeBufferPointer(rebasing: path[first]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: path[second]), as: UTF8.self)
            )
        }
        guard let firstValue = PercentDecoding.decode(UnsafeBufferPointer(rebasing: path[first])),
            let secondValue = PercentDecoding.decode(UnsafeBufferPointer(rebasing: path[second]))
        else { return nil }
        return (firstValue, secondValue)
    }

    /// Whether a path some earlier route's pattern matches could also match this one, so that route, not this one,
    /// answers it: the router answers with the first pattern that matches, and the quick way must not change which.
    /// Both patterns are compared segment by segment: a literal of one against a literal of the other must be the
    /// same; against a parameter, anything goes.
    static func overlaps(_ segments: [Router.Segment], _ other: [Router.Segment]) -> Bool {
        guard segments.count == other.count else { return false }
        for (mine, theirs) in zip(segments, other) {
            if case .literal(let a) = mine, case .literal(let b) = theirs, a != b { return false }
        }
        return true
    }
}
