import Engine
import HTTPServer
import Rules

extension DaemonOptions {
    /// `webhooks: [{"url", "events", "triggers"?, "flags"?, "secret", "maxPending"?}]` (README, "Webhooks"). Every
    /// problem names its field (`webhooks[0].url`); a URL this daemon cannot reach is refused here, at start, rather
    /// than failing every delivery later.
    static func parseWebhooks(_ value: JSONValue, path: String) throws(UsageError) -> [Webhook] {
        guard case .array(let items) = value else { throw UsageError("config file '\(path)': 'webhooks' must be an array") }
        var webhooks: [Webhook] = []
        for (index, item) in items.enumerated() {
            let at = "config file '\(path)': webhooks[\(index)]"
            guard case .object(let fields) = item else { throw UsageError("\(at) must be an object") }
            for key in fields.keys where !["url", "events", "triggers", "flags", "secret", "maxPending"].contains(key) {
                throw UsageError("\(at): unknown key '\(key)'")
            }
            guard case .string(let url)? = fields["url"] else { throw UsageError("\(at).url must be a string") }
            do throws(HTTPClient.URLError) {
                _ = try HTTPClient.Endpoint.parse(url: url)
            } catch {
                throw UsageError("\(at).url '\(url)': \(error.message)")
            }
            guard !webhooks.contains(where: { $0.url == url }) else { throw UsageError("\(at).url '\(url)' is configured twice") }
            guard case .array(let eventValues)? = fields["events"], !eventValues.isEmpty else {
                throw UsageError("\(at).events must be a non-empty array of \"trigger\" and \"flag\"")
            }
            var events: Set<Webhook.EventKind> = []
            for event in eventValues {
                guard let kind = event.stringValue.flatMap(Webhook.EventKind.init(rawValue:)) else {
                    throw UsageError("\(at).events: each event is \"trigger\" or \"flag\"")
                }
                events.insert(kind)
            }
            guard case .string(let secret)? = fields["secret"], secret.utf8.count >= 16 else {
                throw UsageError("\(at).secret must be a string of at least 16 characters")
            }
            var webhook = Webhook(url: url, events: events, secret: secret)
            webhook.triggers = try names(fields["triggers"], at: "\(at).triggers")
            webhook.flags = try names(fields["flags"], at: "\(at).flags")
            if let limit = fields["maxPending"] {
                guard let number = limit.numberValue?.int, number > 0 else { throw UsageError("\(at).maxPending must be a positive integer") }
                webhook.maxPending = number
            }
            webhooks.append(webhook)
        }
        return webhooks
    }

    private static func names(_ value: JSONValue?, at: String) throws(UsageError) -> Set<String>? {
        guard let value else { return nil }
        guard case .array(let items) = value else { throw UsageError("\(at) must be an array of names") }
        var names: Set<String> = []
        for item in items {
            guard let name = item.stringValue else { throw UsageError("\(at) must be an array of names") }
            names.insert(name)
        }
        return names
    }
}
