import Engine
import Foundation
import HTTP
import HTTPServer
import Rules

/// Cluster mode's part of `/v1/admin/status`: every member, its health as the probes last saw it, and the rule
/// version it serves (this replica's own from its rules host, the others' from their `/readyz`).
extension API {
    func clusterStatus(_ cluster: ClusterPeers) -> JSONValue {
        let membership = cluster.membership
        var members: [JSONValue] = []
        for (index, status) in cluster.statuses.enumerated() {
            var member: JSONObject = [
                "member": .int(index), "url": .string(membership.members[index].url), "self": .bool(index == membership.selfIndex),
                "health": .string(status.health.rawValue)
            ]
            let version = index == membership.selfIndex ? rules.current.version : status.rulesVersion
            member["rulesVersion"] = version.map { .string($0) } ?? .null
            if let checkedAt = status.checkedAt {
                member["checkedAt"] = .string(ISO8601.format(Instant(seconds: checkedAt.timeIntervalSince1970)))
            }
            if let error = status.error { member["error"] = .string(error) }
            members.append(.object(member))
        }
        return ["self": .int(membership.selfIndex), "members": .array(members)]
    }
}
