import TestRandom
import Testing

@testable import HTTP

/// Known field names are looked up where `HTTPHeaders` noted them, not by a pass over the fields. These hold the
/// lookups to their definition, the first field whose name matches ignoring case, over random lists built by
/// every change a list allows.
@Suite struct HTTPHeadersKnownFieldTests {
    static func naive(_ fields: [HTTPHeaders.Field], _ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    static let spellings = [
        "Content-Type", "content-type", "CONTENT-TYPE", "If-None-Match", "if-none-match", "X-App-Version", "x-app-version",
        "X-APP-version", "X-Request-Id", "x-request-id", "Origin", "ORIGIN", "Authorization", "authorization", "X-API-Key",
        "x-api-key", "Last-Event-ID", "last-event-id", "Host", "Accept", "X-Custom", "Content-Typf", "If-None-Matcj",
        "X-App-Versions", "Vary", "ETag"
    ]

    /// The slots are one byte per name in one word.
    @Test func knownNames_fitTheirSlots() {
        #expect(KnownField.allCases.count <= 8)
    }

    @Test func knownName_isNamedByItsEveryCase_andNoOtherNameIs() {
        for field in KnownField.allCases {
            #expect(KnownField(field.name) == field)
            #expect(KnownField(field.name.lowercased()) == field)
            #expect(KnownField(field.name.uppercased()) == field)
        }
        for other in ["Host", "Content-Typf", "X-App-Versions", "", "Originn", "X-API-Kez", "Last-Event-IE"] {
            #expect(KnownField(other) == nil, "\(other)")
        }
    }

    @Test func lookups_equalTheFirstMatchingField_overRandomChanges() {
        var random = SplitMix(seed: 0x4EAD)
        for _ in 0..<400 {
            var headers = HTTPHeaders()
            var model: [HTTPHeaders.Field] = []
            for _ in 0..<random.next(upTo: 30) {
                let name = Self.spellings[random.next(upTo: Self.spellings.count)]
                let value = "v\(random.next(upTo: 1000))"
                switch random.next(upTo: 6) {
                case 0:
                    headers.remove(name)
                    model.removeAll { $0.name.lowercased() == name.lowercased() }
                case 1:
                    headers.set(name, value)
                    model.removeAll { $0.name.lowercased() == name.lowercased() }
                    model.append(.init(name: name, value: value))
                default:
                    headers.add(name, value)
                    model.append(.init(name: name, value: value))
                }
                #expect(headers.fields == model)
                for sought in Self.spellings {
                    #expect(headers[sought] == Self.naive(model, sought), "\(sought) in \(model)")
                }
                for field in KnownField.allCases {
                    #expect(headers[field] == Self.naive(model, field.name), "\(field) in \(model)")
                }
                // A head answers a known field in its box as its list does.
                var head = HTTPRequestHead(method: "GET", target: "/", headers: headers)
                for field in KnownField.allCases { #expect(head[field] == Self.naive(model, field.name), "\(field) in \(model)") }
                head.headers.add("X-App-Version", "added")
                #expect(head[.appVersion] == (Self.naive(model, "X-App-Version") ?? "added"))
            }
        }
    }

    @Test func knownFieldsPastTheFirst254_areStillFound() {
        var headers = HTTPHeaders()
        for index in 0..<300 { headers.add("X-Filler-\(index)", "f") }
        headers.add("x-app-version", "late")
        headers.add("X-App-Version", "later")
        #expect(headers[.appVersion] == "late")
        #expect(headers["X-APP-VERSION"] == "late")
        #expect(headers[.ifNoneMatch] == nil)
        headers.remove("X-Filler-0")
        #expect(headers[.appVersion] == "late")
    }

    @Test func dictionaryLiteralAndPairs_noteTheirKnownFields() {
        let literal: HTTPHeaders = ["Vary": "Origin", "content-type": "text/plain", "Content-Type": "application/json"]
        #expect(literal[.contentType] == "text/plain")
        #expect(HTTPHeaders([("Origin", "https://a"), ("origin", "https://b")])[.origin] == "https://a")
        #expect(literal == ["Vary": "Origin", "content-type": "text/plain", "Content-Type": "application/json"])
    }
}

/// Names are compared byte for byte, ignoring ASCII case only: two canonically equivalent spellings are two names
/// (found in review: a `String ==` shortcut in the comparison made them one).
@Suite struct HTTPHeadersNameComparisonTests {
    @Test func canonicallyEquivalentNames_areDifferentFields() {
        var headers = HTTPHeaders()
        headers.add("a\u{301}\u{323}", "1")
        #expect(headers["a\u{323}\u{301}"] == nil)
        #expect(!headers.contains("a\u{323}\u{301}"))
        #expect(headers["a\u{301}\u{323}"] == "1")
        headers.remove("a\u{323}\u{301}")
        #expect(headers.count == 1)
    }
}
