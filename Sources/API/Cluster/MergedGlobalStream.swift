import CLinux
import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization

/// `GET /v1/stream` in cluster mode (README, "Cluster mode"): every member's own global stream, this replica's
/// included, read over HTTP and written to one client stream. Each event goes out with the vector of the last id
/// seen from every member, so `Last-Event-ID` resumes each member exactly. A member whose stream cannot be opened or
/// drops is announced once with `event: member` `{"member", "state": "down"}`, retried every `retryInterval`, and
/// announced `"up"` when its stream opens again, resumed from its last id.
///
/// Threads: one worker thread per member for the stream's life (each blocks in the HTTP client); writes to the
/// client stream and the vector are serialized under `state`'s lock, so events keep each member's order and ids
/// never go backwards.
final class MergedGlobalStream: Sendable {
    let membership: ClusterMembership
    let transport: ClusterTransport
    let request: ClusterTransportRequest
    let retryInterval: Duration
    /// Set when the client opened the stream with a ticket (spent here): each member's stream, this replica's own
    /// included, then opens with a fresh ticket of this replica's, since a ticket opens one stream once.
    let tickets: StreamTickets?
    private let state: Mutex<(vector: VectorEventID, stream: EventStream?, down: Set<Int>, closed: Bool)>

    init(
        membership: ClusterMembership, transport: ClusterTransport, request: ClusterTransportRequest, resume: VectorEventID, retryInterval: Duration,
        tickets: StreamTickets? = nil
    ) {
        self.membership = membership
        self.tickets = tickets
        self.transport = transport
        self.request = request
        self.retryInterval = retryInterval
        state = Mutex((resume, nil, [], false))
    }

    /// Opens this replica's own stream first, on the calling (worker) thread: its answer settles auth and the
    /// query as the client sees it. A refusal is relayed as it is; otherwise the client stream opens and one
    /// thread per member starts.
    func start(sink: ResponseSink) {
        var opened = false
        var refusal: HTTPResponse?
        var parser = SSEParser()
        let selfIndex = membership.selfIndex
        do {
            try transport.stream(
                memberRequest(selfIndex), to: membership.members[selfIndex], connectTimeout: .seconds(10),
                onHead: { head in
                    guard head.status.code == 200 else {
                        refusal = HTTPResponse(status: head.status, headers: ClusterRouter.relayedHeaders(head.headers))
                        return true
                    }
                    seed(selfIndex, from: head)
                    guard
                        let stream = sink.stream(headers: [
                            "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"
                        ])
                    else { return false }
                    opened = true
                    attach(stream)
                    return !stream.isClosed
                },
                onBody: { bytes in
                    guard opened else { return ClusterRouter.accumulate(bytes, into: &refusal, from: selfIndex) }
                    // An event past the parser's bound: not this replica's own stream any more; it ends here.
                    guard let events = try? parser.feed(bytes) else { return false }
                    return deliver(events, from: selfIndex)
                })
        } catch {
            if !opened {
                sink.send(APIError.unavailable("stream_unavailable", "this replica's own stream could not be opened: \(error)").response)
                return
            }
        }
        if !opened {
            sink.send(refusal ?? APIError.unavailable("stream_unavailable", "this replica's own stream ended at once").response)
            return
        }
        // This replica's own stream ended while the client still listens (a drain): end the merged one too.
        close()
    }

    private func attach(_ stream: EventStream) {
        state.withLock { $0.stream = stream }
        stream.send(SSEEncoder.encode(SSEEvent(retry: 2000)))
        stream.onClose { [self] _ in state.withLock { $0.closed = true } }
        for member in membership.members.indices where member != membership.selfIndex {
            let thread = Thread { [self] in
                specd_name_current_thread("specd-merge-\(member)")
                follow(member)
            }
            thread.start()
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    private func close() {
        let stream = state.withLock { state -> EventStream? in
            state.closed = true
            return state.stream
        }
        stream?.close()
    }

    /// The request for one member's own stream: the client's, resumed at that member's last id, with a fresh
    /// ticket (made for each attempt, so a reconnect never presents a spent one) when the client came with one.
    private func memberRequest(_ member: Int) -> ClusterTransportRequest {
        var request = request
        // The client's `?lastEventId=` is a vector: each member resumes from its own part, in the header below.
        request.target = Self.target(
            request.target, replacing: ["ticket", "lastEventId"], with: tickets.map { ["ticket=\($0.issueForMember())"] } ?? [])
        request.headers.remove("Last-Event-ID")
        if let last = state.withLock({ $0.vector.positions[member] }) { request.headers.set("Last-Event-ID", last.description) }
        return request
    }

    /// Follows one other member until the client goes: reconnects after every drop, announcing down and up.
    private func follow(_ member: Int) {
        while !isClosed {
            var parser = SSEParser()
            // Any failure, or an answer other than 200 (a member draining, or refusing the token), counts as down.
            do {
                try transport.stream(
                    memberRequest(member), to: membership.members[member], connectTimeout: .seconds(5),
                    onHead: { head in
                        guard head.status.code == 200 else { return false }
                        seed(member, from: head)
                        announce(member, up: true)
                        return !isClosed
                    },
                    onBody: { bytes in
                        // A member whose event passes the parser's bound is failing, like one that drops: down, and
                        // followed again from its last id.
                        guard let events = try? parser.feed(bytes) else { return false }
                        return deliver(events, from: member)
                    })
            } catch {}
            if isClosed { return }
            announce(member, up: false)
            Thread.sleep(forTimeInterval: retryInterval.inSeconds)
        }
    }

    /// A member the vector holds no position for yet starts where its stream's head says (`X-Specd-Stream-Start`):
    /// a client that resumes from any later id then resumes that member from there, and hears what it published
    /// meanwhile, where a member left out of the vector was reopened live and its events in between were lost.
    private func seed(_ member: Int, from head: ClusterTransportResponse) {
        guard let text = head.headers[API.streamStartHeader], let start = EventID(text: text) else { return }
        state.withLock { state in
            if state.vector.positions[member] == nil { state.vector.advance(member, to: start) }
        }
    }

    /// Writes `member` events on a change of state only: the first failure says down, the first success after it up.
    private func announce(_ member: Int, up: Bool) {
        state.withLock { state in
            guard let stream = state.stream, !state.closed else { return }
            let wasDown = state.down.contains(member)
            guard up == wasDown else { return }
            if up { state.down.remove(member) } else { state.down.insert(member) }
            let data = JSONWriter.write(["member": .int(member), "state": .string(up ? "up" : "down")])
            stream.send(
                SSEEncoder.encode(SSEEvent(id: state.vector.description.nilIfEmpty, event: "member", data: String(decoding: data, as: UTF8.self))))
        }
    }

    /// Relays a member's events with the vector id; `false` once the client has gone.
    private func deliver(_ events: [SSEEvent], from member: Int) -> Bool {
        state.withLock { state in
            guard let stream = state.stream, !state.closed, !stream.isClosed else { return false }
            for var event in events {
                if let id = event.id.flatMap({ EventID(text: $0) }) { state.vector.advance(member, to: id) }
                event.id = state.vector.description.nilIfEmpty
                stream.send(SSEEncoder.encode(event))
            }
            return true
        }
    }
}

extension MergedGlobalStream {
    /// `target` with every `ticket` parameter replaced by `ticket`, put first (the first of a name is the one read).
    static func target(_ target: String, withTicket ticket: String) -> String {
        self.target(target, replacing: ["ticket"], with: ["ticket=\(ticket)"])
    }

    /// `target` without the query parameters named in `names`, and `items` put first (the first of a name is the
    /// one read); no `?` when nothing is left.
    static func target(_ target: String, replacing names: Set<String>, with items: [String]) -> String {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var kept = items
        if parts.count > 1 {
            for item in parts[1].split(separator: "&", omittingEmptySubsequences: true) {
                let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                if let decoded = PercentDecoding.decode(name, plusAsSpace: true), names.contains(decoded) { continue }
                kept.append(String(item))
            }
        }
        return kept.isEmpty ? String(parts[0]) : "\(parts[0])?" + kept.joined(separator: "&")
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
