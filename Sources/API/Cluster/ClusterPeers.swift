import CLinux
import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization

/// The other members as this replica sees them: up, down or not yet known, with the rule version each serves. A
/// worker thread (`specd-probe`) asks every other member's `/readyz` each `interval`; forwarding reports a
/// member it could not reach at once, so the next requests for its users are refused fast instead of each waiting
/// out a connect timeout. Listeners hear every change of health (the merged global stream announces them).
public final class ClusterPeers: Sendable {
    public enum Health: String, Sendable {
        case unknown, up, down
    }

    /// One member's last known state.
    public struct Status: Sendable {
        public var health: Health = .unknown
        public var rulesVersion: String?
        public var checkedAt: Date?
        public var error: String?
    }

    public let membership: ClusterMembership
    let transport: ClusterTransport
    let interval: Duration
    private let state: Mutex<(statuses: [Status], stopped: Bool, listeners: [@Sendable (Int, Health) -> Void])>
    private let wake = DispatchSemaphore(value: 0)
    /// Listeners for the other members' addresses, and the set they last heard.
    private let addressWatch = Mutex<(listeners: [@Sendable (Set<String>) -> Void], last: Set<String>?)>(([], nil))

    public init(membership: ClusterMembership, transport: ClusterTransport, interval: Duration = .seconds(2)) {
        self.membership = membership
        self.transport = transport
        self.interval = interval
        var statuses = Array(repeating: Status(), count: membership.members.count)
        statuses[membership.selfIndex].health = .up
        state = Mutex((statuses, false, []))
    }

    public var statuses: [Status] { state.withLock { $0.statuses } }

    public func health(of member: Int) -> Health { state.withLock { $0.statuses[member].health } }

    /// Runs `listener(member, health)` on every change of a member's health, on the thread that saw it.
    public func onChange(_ listener: @escaping @Sendable (Int, Health) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Starts the probe thread; it probes once at once, then every `interval`.
    public func start() {
        let thread = Thread { [self] in
            specd_name_current_thread("specd-probe")
            while !state.withLock({ $0.stopped }) {
                probeAll()
                resolveMembers()
                _ = wake.wait(timeout: .now() + .milliseconds(Int(interval.inMilliseconds)))
            }
        }
        thread.start()
    }

    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Runs `listener` with the addresses the other members resolve to, on the probe thread, at the first probe round
    /// and whenever they change (a member rescheduled under another address): the server exempts them from its
    /// per-client connection cap, since each member comes as one client for every user it forwards.
    public func onMemberAddresses(_ listener: @escaping @Sendable (Set<String>) -> Void) {
        addressWatch.withLock { $0.listeners.append(listener) }
    }

    /// Resolves the other members' hosts and tells the listeners when the set changed. A host that does not resolve
    /// (a member not scheduled yet) adds nothing until a later round.
    func resolveMembers() {
        guard !addressWatch.withLock({ $0.listeners.isEmpty }) else { return }
        var addresses = Set<String>()
        for (index, member) in membership.members.enumerated() where index != membership.selfIndex {
            addresses.formUnion(HTTPClient.Endpoint(host: member.host, port: member.port).addresses())
        }
        let listeners = addressWatch.withLock { watch -> [@Sendable (Set<String>) -> Void] in
            guard watch.last != addresses else { return [] }
            watch.last = addresses
            return watch.listeners
        }
        for listener in listeners { listener(addresses) }
    }

    /// Asks every other member's `/readyz` once; blocking.
    public func probeAll() {
        for index in membership.members.indices where index != membership.selfIndex { probe(index) }
    }

    func probe(_ index: Int) {
        let request = ClusterTransportRequest(method: "GET", target: "/readyz", headers: [:], body: [])
        do {
            let response = try transport.send(request, to: membership.members[index], timeout: .seconds(2))
            let ready = response.status.code == 200
            record(
                index, health: ready ? .up : .down, rulesVersion: response.headers[Self.rulesVersionHeader],
                error: ready ? nil : "readyz answered \(response.status.code)")
        } catch {
            record(index, health: .down, rulesVersion: nil, error: "\(error)")
        }
    }

    /// Forwarding could not reach `index`: down until a probe finds it ready again.
    public func reportUnreachable(_ index: Int, error: ClusterTransportError) {
        record(index, health: .down, rulesVersion: nil, error: "\(error)")
    }

    /// Forwarding got an answer from `index`: it is up, whatever the last probe said.
    public func reportReached(_ index: Int) {
        guard health(of: index) != .up else { return }
        record(index, health: .up, rulesVersion: nil, error: nil)
    }

    private func record(_ index: Int, health: Health, rulesVersion: String?, error: String?) {
        let (changed, listeners) = state.withLock { state -> (Bool, [@Sendable (Int, Health) -> Void]) in
            let previous = state.statuses[index].health
            state.statuses[index].health = health
            if let rulesVersion { state.statuses[index].rulesVersion = rulesVersion }
            state.statuses[index].checkedAt = Date()
            state.statuses[index].error = error
            return (previous != health, state.listeners)
        }
        if changed { for listener in listeners { listener(index, health) } }
    }

    /// The header `/readyz` names its rule version in, so a probe learns it without a token.
    public static let rulesVersionHeader = "X-Specd-Rules-Version"
}
