import HTTP

/// A well-formed request and what parsing it must yield.
public struct ValidRequestFixture: Sendable {
    public let name: String
    public let bytes: [UInt8]
    public let method: String
    public let target: String
    public let version: HTTPVersion
    public let body: [UInt8]
    public let keepAlive: Bool
    public let expectsContinue: Bool
    public let trailers: HTTPHeaders

    init(
        _ name: String, _ text: String, method: String = "GET", target: String = "/", version: HTTPVersion = .http11,
        body: String = "", keepAlive: Bool = true, expectsContinue: Bool = false, trailers: HTTPHeaders = [:]
    ) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.method = method
        self.target = target
        self.version = version
        self.body = Array(body.utf8)
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
        self.trailers = trailers
    }
}

public enum ValidRequests {
    public static let all: [ValidRequestFixture] = [
        .init("simple GET", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
        .init(
            "GET with query", "GET /v1/users/u1/flags?explain=1 HTTP/1.1\r\nHost: a\r\n\r\n",
            target: "/v1/users/u1/flags?explain=1"),
        .init("HEAD", "HEAD /healthz HTTP/1.1\r\nHost: a\r\n\r\n", method: "HEAD", target: "/healthz"),
        .init("Host with a port", "GET / HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"),
        .init("Host IPv4 with a port", "GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n"),
        .init("Host IPv6 literal with a port", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"),
        .init("Host IPvFuture literal", "GET / HTTP/1.1\r\nHost: [v1.fe80::a+en1]\r\n\r\n"),
        .init("Host empty", "GET / HTTP/1.1\r\nHost:\r\n\r\n"),
        .init("Host empty port", "GET / HTTP/1.1\r\nHost: a:\r\n\r\n"),
        .init("Host with escapes and sub-delims", "GET / HTTP/1.1\r\nHost: my_host-1.%41~!$&'()*+;=\r\n\r\n"),
        .init("HTTP/1.0 without Host closes", "GET / HTTP/1.0\r\n\r\n", version: .http10, keepAlive: false),
        .init("HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", version: .http10),
        .init("HTTP/1.1 Connection close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", keepAlive: false),
        .init(
            "Connection list with close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n",
            keepAlive: false),
        .init(
            "POST with Content-Length", "POST /v1/evaluate HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world",
            method: "POST", target: "/v1/evaluate", body: "hello world"),
        .init(
            "POST with zero Content-Length", "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            method: "POST", target: "/x"),
        .init(
            "Content-Length with leading zeros", "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 003\r\n\r\nabc",
            method: "POST", target: "/x", body: "abc"),
        .init(
            "chunked body", "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            method: "POST", target: "/x", body: "hello world"),
        .init(
            "chunked with extensions", "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;name=val\r\nabc\r\n0;last\r\n\r\n",
            method: "POST", target: "/x", body: "abc"),
        .init(
            "chunked with trailers",
            "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\nChecksum: abc\r\nX-Trailer: 1\r\n\r\n",
            method: "POST", target: "/x", body: "0123456789", trailers: ["Checksum": "abc", "X-Trailer": "1"]),
        .init(
            "chunked upper-case hex",
            "PUT /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1F\r\n0123456789012345678901234567890\r\n0\r\n\r\n",
            method: "PUT", target: "/x", body: "0123456789012345678901234567890"),
        .init(
            "chunked coding name in upper case", "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n1\r\na\r\n0\r\n\r\n",
            method: "POST", target: "/x", body: "a"),
        .init(
            "Expect 100-continue", "POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
            method: "POST", target: "/x", body: "ok", expectsContinue: true),
        .init("leading empty line ignored", "\r\nGET /a HTTP/1.1\r\nHost: a\r\n\r\n", target: "/a"),
        .init("header value with inner spaces and tabs", "GET / HTTP/1.1\r\nHost: a\r\nUser-Agent:  curl/8 (x;\ty)  \r\n\r\n"),
        .init("header without value", "GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\n\r\n"),
        .init("repeated list header", "GET / HTTP/1.1\r\nHost: a\r\nAccept: a\r\nAccept: b\r\n\r\n"),
        .init(
            "absolute-form target", "GET http://example.com/healthz?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
            target: "http://example.com/healthz?x=1"),
        .init("OPTIONS asterisk", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", method: "OPTIONS", target: "*"),
        .init(
            "DELETE with percent-encoded path", "DELETE /v1/users/a%2Fb HTTP/1.1\r\nHost: a\r\n\r\n",
            method: "DELETE", target: "/v1/users/a%2Fb"),
        .init("obs-text in header value", "GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\u{e9}\r\n\r\n"),
        .init("HTTP/1.1 minor version above 1 answered as 1.1", "GET / HTTP/1.2\r\nHost: a\r\n\r\n"),
        .init(
            "mixed-case header names", "POST /x HTTP/1.1\r\nhOsT: a\r\ncontent-LENGTH: 1\r\n\r\nz",
            method: "POST", target: "/x", body: "z")
    ]
}
