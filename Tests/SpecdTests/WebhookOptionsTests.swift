import Foundation
import Testing

@testable import Engine
@testable import specd

@Suite struct WebhookOptionsTests {
    static let secret = "0123456789abcdef"

    func resolve(_ webhooks: String) throws -> DaemonOptions {
        let path = NSTemporaryDirectory() + "specd-config-\(UUID().uuidString).json"
        try #"{"webhooks": \#(webhooks)}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
    }

    @Test func webhooks_fullEntry_isRead() throws {
        let options = try resolve(
            #"[{"url": "http://hooks.internal:9000/specd", "events": ["trigger", "flag"], "triggers": ["welcome"], "flags": ["pro"], "secret": "\#(Self.secret)", "maxPending": 50}]"#
        )
        #expect(
            options.webhooks == [
                Webhook(
                    url: "http://hooks.internal:9000/specd", events: [.trigger, .flag], triggers: ["welcome"], flags: ["pro"], secret: Self.secret,
                    maxPending: 50)
            ])
    }

    @Test(arguments: [
        (#"[{"url": "ftp://h/x", "events": ["flag"], "secret": "S"}]"#, "webhooks[0].url 'ftp://h/x': scheme 'ftp' is not supported"),
        (#"[{"url": "https://h/x", "events": ["flag"], "secret": "S"}]"#, "webhooks[0].url 'https://h/x': https is not supported"),
        (#"[{"url": "h/x", "events": ["flag"], "secret": "S"}]"#, "webhooks[0].url 'h/x': must start with http://"),
        (#"[{"url": "http://h:99999/x", "events": ["flag"], "secret": "S"}]"#, "webhooks[0].url 'http://h:99999/x': the port"),
        (#"[{"url": "http://u@h/x", "events": ["flag"], "secret": "S"}]"#, "webhooks[0].url 'http://u@h/x': the host"),
        (#"[{"events": ["flag"], "secret": "S"}]"#, "webhooks[0].url must be a string"),
        (#"[{"url": "http://h/x", "events": [], "secret": "S"}]"#, "webhooks[0].events must be a non-empty array"),
        (#"[{"url": "http://h/x", "events": ["context"], "secret": "S"}]"#, "webhooks[0].events: each event is"),
        (#"[{"url": "http://h/x", "events": ["flag"], "secret": "short"}]"#, "webhooks[0].secret must be a string of at least 16"),
        (#"[{"url": "http://h/x", "events": ["flag"], "secret": "S", "flags": "pro"}]"#, "webhooks[0].flags must be an array"),
        (#"[{"url": "http://h/x", "events": ["flag"], "secret": "S", "maxPending": 0}]"#, "webhooks[0].maxPending must be a positive"),
        (#"[{"url": "http://h/x", "events": ["flag"], "secret": "S", "retries": 3}]"#, "webhooks[0]: unknown key 'retries'"),
        (
            #"[{"url": "http://h/x", "events": ["flag"], "secret": "S"}, {"url": "http://h/x", "events": ["trigger"], "secret": "S"}]"#,
            "webhooks[1].url 'http://h/x' is configured twice"
        ),
        (#"{"url": "http://h/x"}"#, "'webhooks' must be an array")
    ])
    func webhooks_badEntry_isRefusedNamingTheField(entry: String, message: String) throws {
        let text = entry.replacingOccurrences(of: #""secret": "S""#, with: #""secret": "\#(Self.secret)""#)
        do {
            _ = try resolve(text)
            Issue.record("accepted \(entry)")
        } catch let error as UsageError {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func serve_withBadWebhookURL_exitsOneBeforeListening() throws {
        let path = NSTemporaryDirectory() + "specd-config-\(UUID().uuidString).json"
        try #"{"port": 0, "webhooks": [{"url": "gopher://h/x", "events": ["flag"], "secret": "\#(Self.secret)"}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(CommandLineInterface.run(arguments: ["serve", "--config", path], environment: [:]) == 1)
    }
}
