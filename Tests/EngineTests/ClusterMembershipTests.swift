import Engine
import Testing

@Suite struct ClusterMembershipTests {
    @Test(arguments: [("123456789", UInt32(0xCBF4_3926)), ("", 0), ("a", 0xE8B7_BE43), ("The quick brown fox jumps over the lazy dog", 0x414F_A339)])
    func zlibCRC32_knownInputs_matchCatalogueValues(input: String, expected: UInt32) {
        #expect(ZlibCRC32.checksum(input.utf8) == expected)
    }

    /// Every key, with 2 to 5 members, lands where a real nginx (`hash $arg_k`) sent it.
    @Test func owner_agreesWithRealNginx_forEveryRecordedKey() {
        #expect(nginxHashVectors.count > 150)
        for (key, picks) in nginxHashVectors {
            for (offset, pick) in picks.enumerated() {
                let count = offset + 2
                #expect(ClusterMembership.owner(of: key, memberCount: count) == pick, "key \(key) with \(count) members")
            }
        }
    }

    @Test func owner_oneMember_isAlwaysZero() {
        #expect(ClusterMembership.owner(of: "anyone", memberCount: 1) == 0)
        #expect(ClusterMembership.owner(of: "anyone", memberCount: 0) == 0)
    }

    @Test func owns_isTrueOnExactlyOneMember() {
        let members = (0..<3).compactMap { ClusterMembership.Member(url: "http://specd-\($0).specd:8080") }
        for user in ["a", "b", "café", "x/y"] {
            let owners = (0..<3).filter { ClusterMembership(selfIndex: $0, members: members).owns(user) }
            #expect(owners.count == 1)
        }
    }

    @Test(arguments: [
        ("http://specd-0.specd:8080", "specd-0.specd", 8080), ("http://10.0.0.1", "10.0.0.1", 80), ("http://h:1/", "h", 1),
        ("http://[::1]:9000", "::1", 9000)
    ])
    func member_validURL_splitsHostAndPort(url: String, host: String, port: Int) {
        let member = ClusterMembership.Member(url: url)
        #expect(member?.host == host)
        #expect(member?.port == port)
    }

    @Test(arguments: ["https://h:1", "h:1", "http://", "http://h:0", "http://h:70000", "http://h:x", "http://h/path", "http://u@h:1", "http://[::1"])
    func member_invalidURL_isRefused(url: String) {
        #expect(ClusterMembership.Member(url: url) == nil)
    }
}
