import Engine
import HTTPServer

/// The transport's events as log lines: requests at debug (at info they would cost a write each), refusals at
/// debug, descriptor exhaustion as a warning once per 10 s per listener (the listener rate-limits it).
struct ServerEventLog: ServerEventSink {
    let logger: Logger

    var wantsRequests: Bool { logger.enabled(.debug) }

    func record(_ event: ServerEvent) {
        switch event {
        case .request(let method, let path, let status, let micros, let requestID, let peer):
            logger.debug(
                "request",
                [
                    "method": .string(method), "path": .string(path), "status": .int(status), "durationUs": .int(micros),
                    "requestId": .string(requestID), "peer": .string(peer)
                ])
        case .refused(let code, let peer):
            logger.debug("request refused", ["code": .string(code), "peer": .string(peer)])
        case .acceptPaused(let code, let pause, let open):
            logger.warn(
                "accepting paused: out of file descriptors or socket memory; raise the open-files limit or lower --max-connections",
                ["errno": .int(Int(code)), "pauseMs": .int(pause), "openConnections": .int(open)])
        }
    }
}
