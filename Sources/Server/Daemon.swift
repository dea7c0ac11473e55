import Dispatch
import Foundation
import HTTP
import Rules

/// `specd serve`: builds the router, runs the server until SIGTERM or SIGINT, then drains and exits.
public final class Daemon: Sendable {
    public static let version = "0.1.0"

    public let options: DaemonOptions
    let logger: Logger
    let server: HTTPServer

    let rules: LiveRules

    /// Loads the rules first: a daemon that cannot serve its rules does not start (exit 1).
    public init(options: DaemonOptions, logSink: LogSink = StandardErrorSink()) throws(RuleSetError) {
        self.options = options
        logger = Logger(level: options.logLevel, sink: logSink)
        let loaded = try LiveRules.load(options.rulesPath).get()
        rules = LiveRules(loaded, source: options.rulesPath ?? "embedded")
        server = HTTPServer(configuration: options.server, responder: Daemon.makeRouter(rules: rules), logger: logger)
    }

    static func makeRouter(rules: LiveRules) -> Router {
        var router = Router()
        router.add("GET", "/healthz", sync: { _ throws(APIError) in
            .json(.ok, #"{"status":"ok"}"#, headers: ["Cache-Control": "no-store"])
        })
        RulesRoutes(rules: rules).register(in: &router)
        return router
    }

    /// Serves until a termination signal; returns the process exit code.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        do {
            try server.start()
        } catch {
            logger.error("cannot listen", ["address": .string("\(options.server.host):\(options.server.port)"), "error": .string("\(error)")])
            return 1
        }
        logger.info("listening", ["address": .string("\(options.server.host):\(server.port)"),
                                  "eventLoop": .string(options.server.eventLoop.rawValue),
                                  "loops": .int(options.server.loopCount), "version": .string(Daemon.version)])
        let ruleSet = rules.current
        logger.info("rules loaded", ["source": .string(options.rulesPath ?? "embedded rules.example.json"),
                                     "version": .string(ruleSet.version), "flags": .int(ruleSet.flagKeys.count),
                                     "triggers": .int(ruleSet.triggerKeys.count), "warnings": .int(ruleSet.warnings.count)])
        if let portFile = options.portFile {
            do {
                try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                logger.error("cannot write port file", ["path": .string(portFile), "error": .string("\(error)")])
                server.shutdown()
                return 1
            }
        }
        stop.wait()
        logger.info("shutting down", ["openConnections": .int(server.openConnections)])
        let started = ContinuousClock.now
        server.shutdown()
        let elapsed = ContinuousClock.now - started
        logger.info("stopped", ["drainMs": .int(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))])
        for source in signals { source.cancel() }
        return 0
    }
}
