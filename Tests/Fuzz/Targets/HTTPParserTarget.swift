// libFuzzer target: the HTTP/1.1 request parser, drip-fed. The same bytes are fed whole, split in two at a point
// taken from the input, and (for short inputs) one byte at a time; heads, bodies, trailers, errors and the bytes
// left over must agree, because a parser whose answer depends on how TCP cut the stream is a smuggling vector.
//
// Input: byte 0 chooses the limits (bit 0: tiny limits, so every limit check is reachable), bytes 1-2 the split
// point, the rest is the stream.

/// What the parser made of a stream: events with consecutive body parts joined (their cut depends on the feed).
enum ParseStep: Equatable {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end(HTTPHeaders)
    case error(HTTPParseError)
}

struct ParseOutcome: Equatable {
    var steps: [ParseStep] = []
    var buffered = 0
    var idle = false

    static func == (lhs: ParseOutcome, rhs: ParseOutcome) -> Bool {
        guard lhs.buffered == rhs.buffered, lhs.idle == rhs.idle, lhs.steps.count == rhs.steps.count else { return false }
        return zip(lhs.steps, rhs.steps).allSatisfy { left, right in
            left == right
        }
    }
}

let tinyLimits = HTTPLimits(
    maxRequestLineBytes: 40, maxHeaderBytes: 80, maxHeaderCount: 4, maxBodyBytes: 48,
    maxChunkLineBytes: 8)

func parse(_ stream: [UInt8], cuts: [Int], limits: HTTPLimits) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    var start = 0
    var failed = false
    for end in cuts + [stream.count] where !failed {
        parser.feed(stream[start..<end])
        start = end
        while true {
            let event: HTTPRequestParser.Event?
            do {
                event = try parser.next()
            } catch {
                outcome.steps.append(.error(error))
                failed = true
                break
            }
            guard let event else { break }
            switch event {
            case .head(let head): outcome.steps.append(.head(head))
            case .end(let trailers): outcome.steps.append(.end(trailers))
            case .body(let part):
                if part.isEmpty { fatalError("empty body event") }
                if case .body(let previous)? = outcome.steps.last {
                    outcome.steps[outcome.steps.count - 1] = .body(previous + part)
                } else {
                    outcome.steps.append(.body(part))
                }
            }
        }
    }
    // After an error the caller stops feeding (the connection closes), so what is left buffered depends on where
    // the feed stopped and is not compared.
    if !failed {
        outcome.buffered = parser.bufferedByteCount
        outcome.idle = parser.isIdle
    }
    checkFraming(outcome, limits: limits)
    return outcome
}

/// Bodies match their framing: a Content-Length body is exactly that long, a chunked one within the limit.
func checkFraming(_ outcome: ParseOutcome, limits: HTTPLimits) {
    var framing: BodyFraming?
    var bodyBytes = 0
    for step in outcome.steps {
        switch step {
        case .head(let head):
            if framing != nil { fatalError("a head inside a request") }
            framing = head.framing
            bodyBytes = 0
        case .body(let part):
            guard let current = framing else { fatalError("a body outside a request") }
            bodyBytes += part.count
            if case .length(let length) = current, bodyBytes > length { fatalError("body longer than Content-Length") }
            if current == .none { fatalError("body for a request without one") }
            if bodyBytes > limits.maxBodyBytes { fatalError("body past maxBodyBytes") }
        case .end:
            guard let current = framing else { fatalError("an end outside a request") }
            if case .length(let length) = current, bodyBytes != length { fatalError("body shorter than Content-Length") }
            framing = nil
        case .error:
            break
        }
    }
}

func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = input.byte() & 1 == 1 ? tinyLimits : .default
    let splitSeed = input.int(0...0xFFFF)
    let stream = input.remaining
    let whole = parse(stream, cuts: [], limits: limits)
    let split = parse(stream, cuts: [splitSeed % (stream.count + 1)], limits: limits)
    guard whole == split else {
        fatalError("split at \(splitSeed % (stream.count + 1)) disagrees:\nwhole: \(whole)\nsplit: \(split)")
    }
    if stream.count <= 512 {
        let drip = parse(stream, cuts: Array(stream.indices.dropFirst()), limits: limits)
        guard whole == drip else { fatalError("byte-by-byte disagrees:\nwhole: \(whole)\ndrip: \(drip)") }
    }
    return 0
}
