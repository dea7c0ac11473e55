import Engine
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

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
            return .unreachable(detail: Self.describe(error))
        }
    }

    /// A short sentence for the operations list and the log.
    static func describe(_ error: HTTPClientError) -> String {
        switch error {
        case .unresolvable(let host): "cannot resolve \(host)"
        case .connectFailed(let code): "cannot connect: \(String(cString: strerror(code)))"
        case .timedOut(let phase): "no answer within the timeout (\(phase))"
        case .sendFailed(let code): "send failed: \(String(cString: strerror(code)))"
        case .receiveFailed(let code): "receive failed: \(String(cString: strerror(code)))"
        case .invalidResponse(let problem): "invalid response: \(problem)"
        case .invalidRequestHeader(let name): "invalid request header \(name)"
        case .invalidRequestLine: "invalid request line"
        }
    }
}
