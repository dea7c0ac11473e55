import API
import Engine
import HTTPServer
import Rules
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
        let flags: Set<String>? =
            flagHooks.contains { $0.flags == nil } ? nil : flagHooks.reduce(into: Set<String>()) { $0.formUnion($1.flags ?? []) }
        return WebhookFlagWatch(wrapping: hub, rules: rules, store: store, clock: clock, flags: flags)
    }
}

extension Daemon {
    /// Puts every user recovered at start under the clock's watch for webhooks, as a write would: without it, a
    /// user not written since the restart would have no clock-driven flag change delivered. One pass over the
    /// users (each user's flags evaluated for their next change), on a thread of its own at start.
    func watchStoredUsersForWebhooks() {
        guard let flagWatch else { return }
        let now = engine.clock.now()
        for user in database.store.userIDs {
            flagWatch.written(user: user.string, now: now)
            engine.subscribed(user: user.string)
        }
    }
}

extension Daemon {
    /// Webhook deliveries waiting, retrying or dead-lettered, as `/v1/admin/operations` lists them: a delivery is an
    /// operation of kind `webhookDelivery` whose state says where it stands (`idle` waiting its turn, `loading`
    /// retrying after a failure, `failed` given up), so an operator sees a stuck receiver next to reloads and fires.
    static func operations(of deliveries: [WebhookDeliveryStatus]) -> [TrackedOperation] {
        deliveries.map { status in
            var detail: JSONObject = [
                "webhook": .string(status.delivery.webhook), "user": .string(status.delivery.user),
                "event": .string(status.delivery.eventType), "eventId": .string(status.delivery.eventID),
                "attempts": .int(status.attempts), "delivery": .string(status.state.rawValue)
            ]
            if let next = status.nextAttempt { detail["nextAttempt"] = .string(ISO8601.format(next)) }
            let state: TrackedOperation.State =
                switch status.state {
                case .pending: .idle
                case .retrying: .loading
                case .deadLettered: .failed
                }
            return TrackedOperation(
                id: "webhook-\(status.delivery.id)", kind: "webhookDelivery", state: state, startedAt: status.delivery.createdAt,
                error: status.lastError, detail: detail)
        }
    }
}
