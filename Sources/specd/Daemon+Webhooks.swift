import API
import Engine
import HTTPServer
import Store

extension Daemon {
    /// The dispatcher over the HTTP client, its outbox in `<data dir>/webhooks`, fsynced per record under the
    /// `always` policy (README, "Webhooks"). `nil` without webhooks.
    static func makeWebhooks(
        options: DaemonOptions, fileSystem: FileSystem, clock: WallClock, metrics: Metrics, logger: Logger
    ) throws(IOError) -> WebhookDispatcher? {
        guard !options.webhooks.isEmpty else { return nil }
        return try WebhookDispatcher(
            webhooks: options.webhooks, directory: options.dataDirectory + "/webhooks", fileSystem: fileSystem,
            transport: HTTPWebhookTransport(client: HTTPClient()), clock: clock, metrics: metrics, logger: logger,
            syncEachRecord: options.fsync == .always)
    }

    /// The engine's subscribers: the hub, wrapped so the clock also finds flag changes for users without a stream
    /// when a webhook listens to flag events.
    static func subscribers(hub: StreamHub, options: DaemonOptions, rules: RulesHost, store: ContextStore, clock: WallClock) -> Subscribers {
        let flagHooks = options.webhooks.filter { $0.events.contains(.flag) }
        guard !flagHooks.isEmpty else { return hub }
        let flags: Set<String>? = flagHooks.contains { $0.flags == nil } ? nil : flagHooks.reduce(into: Set<String>()) { $0.formUnion($1.flags ?? []) }
        return WebhookFlagWatch(wrapping: hub, rules: rules, store: store, clock: clock, flags: flags)
    }
}
