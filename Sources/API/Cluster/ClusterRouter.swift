import CLinux
import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization

/// The responder in front of the router in cluster mode (README, "Cluster mode"): a request for a user another
/// member owns is forwarded to that owner and its answer relayed (status, headers, body; event streams as they
/// flow), with the client's `Authorization` passed on. Everything else goes to the router.
///
/// At most one hop: the forwarded request carries `X-Specd-Forwarded: <self>`, and a replica that gets one for a
/// user it does not own answers 421 (the two disagree on the membership) instead of forwarding again. An owner that
/// cannot be reached answers 503 with `Retry-After` for its users only.
///
/// An owner with `maxInFlightPerOwner` exchanges already out is answered 503 at once: a member that accepts
/// connections but never answers holds at most that many threads, and its users alone wait.
///
/// Threads: `respond` runs on the connection's loop and never blocks it; each forwarded exchange runs on a thread of
/// its own (a shared pool was held whole by one frozen owner, every other owner's users queued behind it), each
/// relayed stream too, for its life. The answer reaches the connection through its `ResponseSink`, which hops back
/// to the loop.
public struct ClusterRouter: Responder {
    let router: Responder
    let peers: ClusterPeers
    let transport: ClusterTransport
    let metrics: Metrics
    /// Exchanges read whole that may be out to one owner at once.
    public static let maxInFlightPerOwner = 64
    let slots: ForwardSlots
    /// Bounds a forwarded exchange that is read whole.
    let timeout: Duration
    /// The ticket a merged global stream is opened with is redeemed here (`openMergedStream`); `nil`: passed on.
    let tickets: StreamTickets?

    public init(
        router: Responder, peers: ClusterPeers, transport: ClusterTransport, metrics: Metrics, timeout: Duration = .seconds(10),
        tickets: StreamTickets? = nil
    ) {
        self.router = router
        self.tickets = tickets
        self.peers = peers
        self.transport = transport
        self.metrics = metrics
        self.timeout = timeout
        slots = ForwardSlots(members: peers.membership.members.count, limit: Self.maxInFlightPerOwner)
    }

    var membership: ClusterMembership { peers.membership }

    /// The header a forwarded request carries: the forwarding member's index.
    public static let forwardedHeader = "X-Specd-Forwarded"
    /// Seconds an unreachable owner's users are told to wait.
    static let retryAfterSeconds = 2

    public func respond(to request: consuming Request, sink given: consuming ResponseSink) {
        // A constant: the forwarding threads' closures capture it.
        let sink = consume given
        if request.method == "GET", request.path == "/v1/stream", request.headers[Self.forwardedHeader] == nil {
            openMergedStream(request, sink: sink)
            return
        }
        let owner: Int
        if let user = ClusterRouting.user(of: request) {
            owner = membership.owner(of: user)
        } else if let redeemer = ticketRedeemer(request) {
            // A stream no user owns, opened with a client's ticket: the one member that redeems that ticket.
            owner = redeemer
        } else {
            router.respond(to: request, sink: sink)
            return
        }
        guard owner != membership.selfIndex else {
            router.respond(to: request, sink: sink)
            return
        }
        if let from = request.headers[Self.forwardedHeader] {
            metrics.increment("forward_refused_total")
            sink.send(
                APIError(
                    HTTPStatus(code: 421, reason: "Misdirected Request"), code: "not_owner",
                    message:
                        "member \(from) forwarded a user that member \(owner) owns, not this one (\(membership.selfIndex)): the members disagree on the membership"
                ).response)
            return
        }
        metrics.increment("forwarded_requests_total")
        var asked = forwardedRequest(request)
        // The owner's answer to HEAD has no body, and its Content-Length is framing this connection writes itself:
        // asked as GET, the owner's body gives this HEAD answer the length a GET's would state (and is not sent).
        // Not for a stream route, which a GET would open.
        if request.method == "HEAD", !ClusterRouting.isStreamPath(request.path) { asked.method = "GET" }
        let forwarded = asked
        if ClusterRouting.isStream(request) {
            Thread.detachNewThread {
                specd_name_current_thread("specd-forward")
                relayStream(forwarded, to: owner, sink: sink)
            }
            return
        }
        guard slots.take(owner) else {
            metrics.increment("forward_failures_total")
            sink.send(
                APIError.unavailable(
                    "owner_busy",
                    "member \(owner), which holds this user, has \(Self.maxInFlightPerOwner) forwarded requests unanswered; other users are unaffected",
                    retryAfter: Self.retryAfterSeconds
                ).response)
            return
        }
        Thread.detachNewThread {
            specd_name_current_thread("specd-forward")
            let response = relay(forwarded, to: owner)
            // Free before the answer goes out: whoever hears it may ask the same owner again at once.
            slots.release(owner)
            sink.send(response)
        }
    }

    /// The cluster-wide global stream: every member's own, merged (`MergedGlobalStream`).
    private func openMergedStream(_ request: Request, sink: ResponseSink) {
        var resume = VectorEventID()
        // As a member's own stream reads it: the header, else `?lastEventId=` (an EventSource cannot set headers).
        if let text = request.headers[.lastEventID] ?? request.query("lastEventId") {
            guard let parsed = VectorEventID(text: text, memberCount: membership.members.count) else {
                sink.send(
                    APIError.invalidField(
                        "Last-Event-ID", "Last-Event-ID must be an id this cluster's merged stream sent (member-id pairs joined by '.')"
                    ).response)
                return
            }
            resume = parsed
        }
        // A ticket opens one stream once, and the merged stream is one per member: the client's ticket is redeemed
        // by the one member that redeems it (`ticketRedeemer`), and every member's stream opens with a fresh ticket
        // of this replica's. No member trusts a forwarded header for it.
        var memberTickets: StreamTickets?
        var redeemer: Int?
        if let tickets, let ticket = request.query("ticket") {
            redeemer = ticketRedeemer(request)
            if redeemer == nil || redeemer == membership.selfIndex, let refusal = tickets.check(ticket, for: .global, metrics: metrics) {
                sink.send(refusal.response)
                return
            }
            memberTickets = tickets
        }
        let merged = MergedGlobalStream(
            membership: membership, transport: transport, request: forwardedRequest(request), resume: resume, retryInterval: .seconds(2),
            tickets: memberTickets)
        if let redeemer, redeemer != membership.selfIndex {
            let original = forwardedRequest(request)
            Thread.detachNewThread {
                specd_name_current_thread("specd-forward")
                if redeemTicket(original, at: redeemer, sink: sink) { merged.start(sink: sink) }
            }
            return
        }
        Thread.detachNewThread {
            specd_name_current_thread("specd-forward")
            merged.start(sink: sink)
        }
    }

    func forwardedRequest(_ request: Request) -> ClusterTransportRequest {
        var headers = HTTPHeaders()
        let connectionListed = Set(request.headers.listElements("Connection").map { $0.lowercased() })
        for field in request.headers {
            let name = field.name.lowercased()
            guard !Self.hopByHop.contains(name), !connectionListed.contains(name), name != "x-request-id", name != "host" else { continue }
            headers.add(field.name, field.value)
        }
        // The owner answers under the request id this replica already gave the client.
        headers.add("X-Request-Id", request.id)
        headers.add(Self.forwardedHeader, String(membership.selfIndex))
        return ClusterTransportRequest(method: request.method, target: request.head.target, headers: headers, body: request.body)
    }

    /// RFC 9110 §7.6.1's connection-specific fields, plus the framing the client and the encoder write themselves
    /// and `Expect` (this replica has read the whole body already).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authenticate",
        "proxy-authorization", "content-length", "expect"
    ]

    /// The owner's headers minus hop-by-hop fields and those this connection writes itself.
    static func relayedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var relayed = HTTPHeaders()
        let connectionListed = Set(headers.listElements("Connection").map { $0.lowercased() })
        for field in headers {
            let name = field.name.lowercased()
            guard !hopByHop.contains(name), !connectionListed.contains(name), name != "date", name != "x-request-id" else { continue }
            relayed.add(field.name, field.value)
        }
        return relayed
    }

    private func relay(_ request: ClusterTransportRequest, to owner: Int) -> HTTPResponse {
        do {
            let response = try transport.send(request, to: membership.members[owner], timeout: timeout)
            peers.reportReached(owner)
            return HTTPResponse(status: response.status, headers: Self.relayedHeaders(response.headers), body: response.body)
        } catch {
            return failed(owner, error)
        }
    }

    /// A stream that the owner opens (200 `text/event-stream`) is opened here with its headers and fed its bytes as
    /// they come; any other answer (a refusal) is read whole and relayed as one response.
    private func relayStream(_ request: ClusterTransportRequest, to owner: Int, sink: ResponseSink) {
        let stream = Mutex<EventStream?>(nil)
        let refusal = Mutex<HTTPResponse?>(nil)
        do {
            try transport.stream(
                request, to: membership.members[owner], connectTimeout: timeout,
                onHead: { head in
                    peers.reportReached(owner)
                    let headers = Self.relayedHeaders(head.headers)
                    guard head.status.code == 200, let opened = sink.stream(headers: headers) else {
                        refusal.withLock { $0 = HTTPResponse(status: head.status, headers: headers) }
                        return true
                    }
                    stream.withLock { $0 = opened }
                    return !opened.isClosed
                },
                onBody: { bytes in
                    if let opened = stream.withLock({ $0 }) {
                        opened.send(bytes)
                        return !opened.isClosed
                    }
                    return refusal.withLock { Self.accumulate(bytes, into: &$0, from: owner) }
                })
        } catch {
            if let opened = stream.withLock({ $0 }) {
                opened.close()
            } else {
                sink.send(failed(owner, error))
            }
            return
        }
        if let opened = stream.withLock({ $0 }) {
            opened.close()
        } else if let response = refusal.withLock({ $0 }) {
            sink.send(response)
        }
    }

    /// A member's refusal of a stream is read whole before it is relayed, up to this size: one that sent an endless
    /// body would otherwise grow this replica for as long as it sent. An error body is a few hundred bytes.
    static let maxRefusalBytes = 64 << 10

    /// Adds `bytes` to the refusal being read from `member`; `false` (stop reading) once it would pass
    /// `maxRefusalBytes`, the refusal then replaced by a 502 that says so.
    static func accumulate(_ bytes: [UInt8], into refusal: inout HTTPResponse?, from member: Int) -> Bool {
        guard let held = refusal?.body.count else { return false }
        guard held + bytes.count <= maxRefusalBytes else {
            refusal =
                APIError(
                    HTTPStatus(code: 502, reason: "Bad Gateway"), code: "member_answer_too_large",
                    message: "member \(member) refused with a body over \(maxRefusalBytes) bytes", retryable: true
                ).response
            return false
        }
        refusal?.body += bytes
        return true
    }

    private func failed(_ owner: Int, _ error: ClusterTransportError) -> HTTPResponse {
        metrics.increment("forward_failures_total")
        // No answer within the timeout counts as down too (the status page and the merged stream say so), until a
        // probe or an answer finds it up again.
        switch error {
        case .unreachable, .timedOut: peers.reportUnreachable(owner, error: error)
        case .malformedResponse: break
        }
        return unreachable(owner)
    }

    private func unreachable(_ owner: Int) -> HTTPResponse {
        APIError.unavailable(
            "owner_unreachable", "member \(owner), which holds this user, cannot be reached; other users are unaffected",
            retryAfter: Self.retryAfterSeconds
        ).response
    }
}
