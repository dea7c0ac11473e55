import Testing

@testable import Rules

@Suite struct ByteKeyTests {
    let nfc = "caf\u{E9}"
    let nfd = "cafe\u{301}"

    @Test func canonicallyEquivalentSpellings_areDifferentKeys() {
        #expect(nfc == nfd) // Swift's String equality is canonical equivalence
        #expect(ByteKey(nfc) != ByteKey(nfd))
        #expect(!nfc.bytesEqual(nfd))
        #expect(Set([ByteKey(nfc), ByteKey(nfd)]).count == 2)
        var map: [ByteKey: Int] = [:]
        map[ByteKey(nfc)] = 1
        map[ByteKey(nfd)] = 2
        #expect(map.count == 2 && map[ByteKey(nfc)] == 1 && map[ByteKey(nfd)] == 2)
    }

    @Test func sameBytes_areOneKey() {
        #expect(ByteKey("alice") == ByteKey("ali" + "ce"))
        #expect(Set([ByteKey("alice"), ByteKey("alice")]).count == 1)
    }

    @Test func ordering_isByteOrder() {
        #expect(ByteKey(nfd) < ByteKey(nfc)) // 0x65 'e' < 0xC3
        #expect(ByteKey("a") < ByteKey("ab"))
        #expect(!(ByteKey("b") < ByteKey("a")))
    }
}
