import Engine
import Rules

/// Cluster mode's settings (README, "Cluster mode"): `cluster: {"self": 1, "members": ["http://specd-0.specd:8080",
/// ...]}` in the config file, `SPECD_CLUSTER_SELF` / `SPECD_CLUSTER_MEMBERS` (comma-separated) in the environment,
/// `--cluster-self` / `--cluster-members` as flags. `self` may be a StatefulSet pod name (`specd-2`): its trailing
/// ordinal is taken, so a manifest can pass the pod's own name.
extension DaemonOptions {
    /// What the three sources said, checked whole by `validateCluster` once all have spoken.
    public struct ClusterSettings: Sendable, Equatable {
        public var selfIndex: Int?
        public var members: [ClusterMembership.Member] = []
        public init() {}
    }

    /// The membership this daemon serves under; `nil` runs it alone (it owns every user).
    public var membership: ClusterMembership? {
        guard let selfIndex = cluster.selfIndex, !cluster.members.isEmpty else { return nil }
        return ClusterMembership(selfIndex: selfIndex, members: cluster.members)
    }

    static let clusterSelfHelp = "this replica's index in cluster.members (an integer, or a pod name ending in -N)"
    static let clusterMembersHelp = "every replica's URL in ordinal order, comma-separated (http://HOST:PORT)"

    static func clusterMembers(_ list: String) throws(UsageError) -> [ClusterMembership.Member] {
        try clusterMembers(list.split(separator: ",").map { String($0).trimmingSpaces })
    }

    static func clusterSelf(_ text: String) throws(UsageError) -> Int {
        // A pod name's ordinal follows its last `-`.
        let digits = text.split(separator: "-", omittingEmptySubsequences: false).last.map(String.init) ?? text
        guard let index = Int(digits), index >= 0, index < 10_000 else {
            throw UsageError("cluster.self must be a member index (0, 1, ...) or a pod name ending in one, not '\(text)'")
        }
        return index
    }

    static func clusterMembers(_ urls: [String]) throws(UsageError) -> [ClusterMembership.Member] {
        guard !urls.isEmpty, urls.count <= 1024 else { throw UsageError("cluster.members must list 1-1024 member URLs") }
        var members: [ClusterMembership.Member] = []
        for (index, url) in urls.enumerated() {
            guard let member = ClusterMembership.Member(url: url) else {
                throw UsageError("cluster.members[\(index)] must be an http://HOST:PORT URL, not '\(url)'")
            }
            guard !members.contains(where: { $0.url == member.url }) else {
                throw UsageError("cluster.members[\(index)] '\(url)' is listed twice")
            }
            members.append(member)
        }
        return members
    }

    /// `cluster: {...}` in the config file.
    mutating func applyCluster(_ value: JSONValue, path: String) throws(UsageError) {
        guard let object = value.objectValue else { throw UsageError("config file '\(path)': 'cluster' must be an object") }
        for (key, member) in object {
            switch key {
            case "self":
                switch member {
                case .string(let text): cluster.selfIndex = try Self.clusterSelf(text)
                case .number(let number): cluster.selfIndex = try Self.clusterSelf(number.text)
                default: throw UsageError("config file '\(path)': 'cluster.self' must be an integer")
                }
            case "members":
                guard case .array(let items) = member else { throw UsageError("config file '\(path)': 'cluster.members' must be an array of URLs") }
                var urls: [String] = []
                for (index, item) in items.enumerated() {
                    guard case .string(let url) = item else {
                        throw UsageError("config file '\(path)': 'cluster.members[\(index)]' must be a string")
                    }
                    urls.append(url)
                }
                cluster.members = try Self.clusterMembers(urls)
            default:
                throw UsageError("config file '\(path)': unknown key 'cluster.\(key)'")
            }
        }
    }

    /// Both halves or neither, and `self` inside the list.
    func validateCluster() throws(UsageError) {
        switch (cluster.selfIndex, cluster.members.isEmpty) {
        case (nil, true): return
        case (nil, false): throw UsageError("cluster.self is required when cluster.members is set")
        case (.some, true): throw UsageError("cluster.members is required when cluster.self is set")
        case (.some(let index), false):
            guard index < cluster.members.count else {
                throw UsageError("cluster.self (\(index)) must be below the number of cluster.members (\(cluster.members.count))")
            }
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
