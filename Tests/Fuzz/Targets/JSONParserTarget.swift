// libFuzzer target: the JSON parser never traps, and whatever it accepts round-trips through JSONWriter to an
// equal value whose writing is a fixed point (write(parse(write(v))) == write(v)).
//
// Input: the raw JSON text, parsed twice (the request limits and the rule-file limits).

let parsers = [JSONParser(), JSONParser(maxDepth: 64, maxBytes: 1 << 20)]

func fuzzJSONParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    for parser in parsers {
        let value: JSONValue
        do {
            value = try parser.parse(bytes)
        } catch {
            // The offset must point into (or just past) the text, and the message must be writable.
            guard error.offset >= 0, error.offset <= max(bytes.count, parser.maxBytes) else {
                fatalError("error offset \(error.offset) outside a \(bytes.count)-byte text")
            }
            _ = error.description
            continue
        }
        let written = JSONWriter.write(value)
        let reparsed: JSONValue
        do {
            reparsed = try parser.parse(written)
        } catch {
            fatalError("the writer's output does not parse: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
        guard reparsed == value else {
            fatalError("round trip changed the value:\n\(value)\n\(reparsed)")
        }
        guard JSONWriter.write(reparsed) == written else {
            fatalError("writing is not a fixed point:\n\(String(decoding: written, as: UTF8.self))")
        }
        guard value.hashValue == reparsed.hashValue else { fatalError("equal values hash differently") }
    }
    return 0
}
