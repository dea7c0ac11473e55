/// Which replica of a cluster owns which users (README, "Cluster mode"). Replica `i` of `N` owns user `u` when
/// `((crc32(u) >> 16) & 0x7fff) mod N == i`: the hash nginx's `hash $key` (without `consistent`, compatible with
/// Cache::Memcached) computes for its first try, so nginx sends a request that names the user straight to the
/// owner, and a replica that gets one anyway forwards it there. The hash is over the id's own UTF-8 bytes.
public struct ClusterMembership: Sendable, Equatable {
    /// One replica: the URL it is reached at (`http://host:port`, no path), split for the client.
    public struct Member: Sendable, Equatable {
        public let url: String
        public let host: String
        public let port: Int

        /// `nil` unless `url` is `http://HOST:PORT` or `http://HOST` (port 80), with an optional trailing `/`:
        /// members are reached over plain HTTP/1.1 inside the cluster's network.
        public init?(url: String) {
            guard url.hasPrefix("http://") else { return nil }
            var rest = Substring(url.dropFirst("http://".count))
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else { return nil }
            var host = rest
            var port = 80
            if rest.hasPrefix("[") {
                // An IPv6 literal: `[::1]:8080`.
                guard let close = rest.firstIndex(of: "]") else { return nil }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                    port = number
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else { return nil }
                port = number
            }
            guard !host.isEmpty, !host.contains(":") || rest.hasPrefix("[") else { return nil }
            self.url = "http://" + rest
            self.host = String(host)
            self.port = port
        }
    }

    /// This replica's index in `members` (its StatefulSet ordinal).
    public let selfIndex: Int
    /// Every replica, in ordinal order: the order nginx's upstream lists them in.
    public let members: [Member]

    public init(selfIndex: Int, members: [Member]) {
        self.selfIndex = selfIndex
        self.members = members
    }

    /// The index of the member that owns `user`.
    public func owner(of user: String) -> Int {
        Self.owner(of: user, memberCount: members.count)
    }

    public func owns(_ user: String) -> Bool { owner(of: user) == selfIndex }

    /// The owner among `memberCount` members; 0 with one member (or none). `reshard` uses it for the new count.
    public static func owner(of user: String, memberCount: Int) -> Int {
        guard memberCount > 1 else { return 0 }
        let hash = (ZlibCRC32.checksum(user.utf8) >> 16) & 0x7FFF
        return Int(hash % UInt32(memberCount))
    }
}
