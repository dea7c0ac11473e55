import Rules
import Testing

@Suite struct JSONWriterTests {
    /// Escapes at the start, middle and end of a string, next to each other and between plain runs, and non-ASCII
    /// bytes passed through: the run-copying writer must match the byte-by-byte rule everywhere.
    @Test(arguments: [
        ("", #""""#), ("plain", #""plain""#), ("\"", #""\"""#), ("a\"b", #""a\"b""#), ("\\end\\", #""\\end\\""#),
        ("\n\r\t", #""\n\r\t""#), ("x\u{01}y\u{1F}z\u{7F}", #""x\u0001y\u001fz\u007f""#), ("café ☕", "\"café ☕\""),
        ("\u{0}", #""\u0000""#)
    ])
    func writeString_escapesOnlyWhatJSONRequires(text: String, expected: String) {
        var out: [UInt8] = []
        JSONWriter.writeString(text, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
