import HTTP

/// A request reassembled from parser events, for comparing feeding strategies.
struct ParsedRequest: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8] = []
    var trailers: HTTPHeaders = [:]
}

enum FeedOutcome: Equatable {
    case requests([ParsedRequest])
    case failed(HTTPParseError, completedBefore: Int)
}

/// Feeds `pieces` one after another, draining events after each, as a socket reader would.
func feed(_ pieces: [ArraySlice<UInt8>], limits: HTTPLimits = .default) -> FeedOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var done: [ParsedRequest] = []
    var current: ParsedRequest?
    do {
        for piece in pieces {
            parser.feed(piece)
            while let event = try parser.next() {
                switch event {
                case .head(let head): current = ParsedRequest(head: head)
                case .body(let part): current!.body += part
                case .end(let trailers):
                    current!.trailers = trailers
                    done.append(current!)
                    current = nil
                }
            }
        }
    } catch {
        return .failed(error, completedBefore: done.count)
    }
    return .requests(done)
}

/// The four strategies of the drip-feed habit: whole, byte by byte, split at every index, pipelined twice.
func dripFeedOutcomes(_ bytes: [UInt8], limits: HTTPLimits = .default) -> [(String, FeedOutcome)] {
    var outcomes: [(String, FeedOutcome)] = [("whole", feed([bytes[...]], limits: limits))]
    outcomes.append(("byte by byte", feed(bytes.indices.map { bytes[$0...$0] }, limits: limits)))
    for split in 1..<bytes.count {
        outcomes.append(("split at \(split)", feed([bytes[..<split], bytes[split...]], limits: limits)))
    }
    return outcomes
}
