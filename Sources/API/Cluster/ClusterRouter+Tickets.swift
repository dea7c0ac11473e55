import Engine
import HTTP
import HTTPServer
import Rules
import Synchronization

/// Stream tickets in a cluster (README, "Cluster mode"). Every replica checks any replica's ticket (they are signed
/// with a key derived from the shared tokens), and remembers the tickets presented to it; so that a ticket is
/// used once in the whole cluster, each is presented to one member only. A user's stream goes to the user's owner
/// with `?ticket=` untouched. A stream no user owns (the global stream, OpenFeature's keyless one) goes by the
/// ticket: the member owning its nonce, as if the nonce were a user id, redeems it.
extension ClusterRouter {
    /// The member that redeems the client's ticket on this keyless stream request; `nil` when the request carries
    /// none, is for a user's stream, or carries a ticket that does not verify (refused where it arrives) or that a
    /// merging replica made for one member (redeemed by the member it was sent to).
    func ticketRedeemer(_ request: Request) -> Int? {
        guard request.method == "GET", let tickets, let text = request.query("ticket"), let target = StreamTarget(request: request) else {
            return nil
        }
        switch target {
        case .global: break
        case .openFeature(let key) where key.string.isEmpty: break
        case .user, .openFeature: return nil
        }
        guard let ticket = StreamTicket(verifying: text, key: tickets.key), !ticket.isForMember else { return nil }
        return membership.owner(of: HMAC.hex(ticket.nonce))
    }

    /// Presents the client's ticket for the merged global stream to the member that redeems it, by opening that
    /// member's own stream with it and closing it once the head says whether it opened. `true`: redeemed, go on;
    /// otherwise the member's refusal (or 503) has been sent.
    func redeemTicket(_ request: ClusterTransportRequest, at redeemer: Int, sink: ResponseSink) -> Bool {
        let refusal = Mutex<HTTPResponse?>(nil)
        let opened = Mutex(false)
        do {
            try transport.stream(
                request, to: membership.members[redeemer], connectTimeout: timeout,
                onHead: { head in
                    peers.reportReached(redeemer)
                    guard head.status.code == 200 else {
                        refusal.withLock { $0 = HTTPResponse(status: head.status, headers: Self.relayedHeaders(head.headers)) }
                        return true
                    }
                    opened.withLock { $0 = true }
                    return false
                },
                onBody: { bytes in refusal.withLock { Self.accumulate(bytes, into: &$0, from: redeemer) } })
        } catch {
            if opened.withLock({ $0 }) { return true }
            metrics.increment("forward_failures_total")
            if case .unreachable = error { peers.reportUnreachable(redeemer, error: error) }
            sink.send(
                APIError.unavailable(
                    "ticket_redeemer_unreachable", "member \(redeemer), which redeems this ticket, cannot be reached; ask for a new ticket",
                    retryAfter: Self.retryAfterSeconds
                ).response)
            return false
        }
        if opened.withLock({ $0 }) { return true }
        sink.send(
            refusal.withLock { $0 } ?? APIError.unavailable("stream_unavailable", "member \(redeemer) gave no answer to the ticket").response)
        return false
    }
}
