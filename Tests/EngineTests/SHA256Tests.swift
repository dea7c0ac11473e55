import Engine
import Testing

@Suite struct SHA256Tests {
    private static func hexBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// FIPS 180-4 examples (NIST's "SHA256.pdf" and the secure hashing example values), plus the empty message.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    ])
    func hash_fipsExample_matchesPublishedDigest(message: String, digest: String) {
        #expect(HMAC.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func hash_oneMillionA_matchesPublishedDigest() {
        var hasher = SHA256()
        let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(thousand) }
        #expect(HMAC.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [55, 56, 63, 64, 65, 119, 120, 128])
    func hash_messageAroundPaddingBoundary_isTheSameFedWholeOrByteByByte(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var dripped = SHA256()
        for byte in message { dripped.update([byte]) }
        #expect(dripped.finalize() == SHA256.hash(message))
    }

    /// RFC 4231 §4.2–4.8, every case; case 5's tag is truncated to 128 bits.
    @Test(arguments: [
        (
            String(repeating: "0b", count: 20), "4869205468657265",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (String(repeating: "0c", count: 20), "546573742057697468205472756e636174696f6e", "a3b6167473100ee06e0c796c2955552b"),
        (
            String(repeating: "aa", count: 131),
            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c"
                + "6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f2062652068617368656420"
                + "6265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        )
    ])
    func hmac_rfc4231Case_matchesPublishedTag(key: String, data: String, tag: String) {
        let full = HMAC.sha256(key: Self.hexBytes(key), message: Self.hexBytes(data))
        #expect(HMAC.hex(Array(full.prefix(tag.count / 2))) == tag)
    }
}
