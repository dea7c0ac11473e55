/// User ids: 1–256 bytes of UTF-8, no control characters (README, "Users and keys"). Keys (counter, event, flag,
/// attribute and segment names) have the same shape, but their length limit is configurable and checked by the store.
public enum Identifier {
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count <= 256 && isValidKey(text)
    }

    public static func isValidKey(_ text: String) -> Bool {
        // Control characters are Unicode's Cc: C0, DEL and C1 (U+0080–U+009F).
        !text.utf8.isEmpty && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
