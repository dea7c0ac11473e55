import Engine
import HTTP
import HTTPServer

/// `ClusterTransport` over the project's blocking `HTTPClient`, whose keep-alive pool keeps a few connections to
/// each member.
public struct HTTPClientTransport: ClusterTransport {
    let client: HTTPClient

    public init(client: HTTPClient = HTTPClient(maxIdlePerEndpoint: 32)) {
        self.client = client
    }

    public func send(
        _ request: ClusterTransportRequest, to member: ClusterMembership.Member, timeout: Duration
    ) throws(ClusterTransportError)
        -> ClusterTransportResponse
    {
        do {
            let response = try client.send(
                method: request.method, path: request.target, headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.body,
                to: HTTPClient.Endpoint(host: member.host, port: member.port), timeout: timeout)
            return ClusterTransportResponse(
                status: HTTPStatus(code: response.status), headers: HTTPHeaders(response.headers.map { ($0.name, $0.value) }), body: response.body)
        } catch {
            throw Self.map(error)
        }
    }

    public func stream(
        _ request: ClusterTransportRequest, to member: ClusterMembership.Member, connectTimeout: Duration,
        onHead: (ClusterTransportResponse) -> Bool, onBody: ([UInt8]) -> Bool
    ) throws(ClusterTransportError) {
        do {
            // A relayed event stream hears a keep-alive comment at least every 15 s: a minute of silence is a dead member.
            try client.stream(
                method: request.method, path: request.target, headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.body,
                to: HTTPClient.Endpoint(host: member.host, port: member.port), connectTimeout: connectTimeout, idleTimeout: .seconds(60),
                onHead: { head in onHead(ClusterTransportResponse(status: HTTPStatus(code: head.status, reason: head.reason), headers: head.headers))
                },
                onBody: onBody)
        } catch {
            throw Self.map(error)
        }
    }

    static func map(_ error: HTTPClientError) -> ClusterTransportError {
        switch error {
        case .unresolvable, .connectFailed, .timedOut(.connect), .sendFailed: return .unreachable("\(error)")
        case .timedOut: return .timedOut
        default: return .malformedResponse("\(error)")
        }
    }
}
