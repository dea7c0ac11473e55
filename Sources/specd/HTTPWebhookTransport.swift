import Engine
import HTTPServer

/// Webhook deliveries over the daemon's HTTP client: a 2xx answer is delivered, any other answer or none is a
/// failure the dispatcher retries. Runs on the dispatcher's threads only (the client blocks).
struct HTTPWebhookTransport: WebhookTransport {
    let client: HTTPClient

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) -> WebhookAttempt {
        let endpoint: HTTPClient.Endpoint
        let target: String
        do throws(HTTPClient.URLError) {
            (endpoint, target) = try HTTPClient.Endpoint.parse(url: url)
        } catch {
            return .unreachable(detail: "url: \(error.message)")
        }
        do throws(HTTPClientError) {
            // The receiver's answer body is not read by anyone: a small bound keeps a chatty one cheap.
            let response = try client.send(
                method: "POST", path: target, headers: headers, body: body, to: endpoint, timeout: timeout, maxBodyBytes: 64 * 1024)
            return (200..<300).contains(response.status) ? .delivered(status: response.status) : .refused(status: response.status)
        } catch {
            return .unreachable(detail: "\(error)")
        }
    }
}
