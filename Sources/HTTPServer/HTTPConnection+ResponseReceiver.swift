import HTTP

/// A handler's answer or stream, for request number `request` (the connection's `generation` when it was
/// dispatched); from any thread, so hopped onto the loop when not on it.
extension HTTPConnection: ResponseReceiver {
    func receive(_ response: HTTPResponse, request expected: Int) {
        if loop.inEventLoop {
            complete(response, generation: expected)
        } else {
            loop.execute { self.complete(response, generation: expected) }
        }
    }

    func openStream(headers: HTTPHeaders, request expected: Int) -> EventStream {
        let stream = EventStream(
            write: { [self] frame, direct in
                sendEvent(frame, direct: direct)
            },
            finish: { [self] in
                loop.execute { self.endStream(.serverClosed) }
            })
        if loop.inEventLoop {
            beginStream(stream, headers: headers, generation: expected)
        } else {
            loop.execute { self.beginStream(stream, headers: headers, generation: expected) }
        }
        return stream
    }
}
