/// HMAC-SHA256 (RFC 2104, with SHA-256 as in RFC 4231): how a webhook receiver checks that a body came from this
/// daemon and was not altered (`X-Specd-Signature: sha256=<hex>`).
public enum HMAC {
    /// The full 32-byte tag of `message` under `key`.
    public static func sha256<Message: Sequence>(key: [UInt8], message: Message) -> [UInt8] where Message.Element == UInt8 {
        // RFC 2104 §2: a key longer than the block is hashed first; a shorter one is padded with zeros.
        var block = key.count > SHA256.blockByteCount ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockByteCount - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Lower-case hexadecimal, as the signature header carries it.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
