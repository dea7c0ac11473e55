import Foundation
import Rules
import Testing

@Suite struct BucketingTests {
    @Test(arguments: [("", UInt32(0)), ("a", 0x3c25_69b2), ("abc", 0xb3dd_93fa), ("héllo", 0xbc9f_a068)])
    func murmur3_knownVectors(text: String, expected: UInt32) {
        #expect(Bucketing.murmur3(text) == expected)
    }

    /// Generated once by an independent implementation and committed: any change here breaks every client.
    @Test func murmur3_goldenVectors() throws {
        let data = try Data(contentsOf: fixtureURL("bucketing-golden.json"))
        let document = try JSONParser(maxDepth: 8, maxBytes: 1 << 22).parse(Array(data))
        let vectors = try #require(document["vectors"]?.arrayValue)
        #expect(vectors.count >= 1000)
        for vector in vectors {
            let input = vector["input"]!.stringValue!
            let hash = UInt32(vector["hash"]!.numberValue!.int!)
            let weight = UInt64(vector["weight"]!.numberValue!.int!)
            #expect(Bucketing.murmur3(input) == hash, "\(input)")
            #expect(Bucketing.bucket(input, totalWeight: weight) == UInt64(vector["bucket"]!.numberValue!.int!))
        }
    }

    @Test(arguments: [100, 1000, 5000])
    func rollout_distribution_withinHalfAPoint(basisPoints: Int) {
        let users = 100_000
        var inside = 0
        for index in 0..<users where Bucketing.inRollout(salt: "promo", flagKey: "promo", value: "user-\(index)", basisPoints: basisPoints) {
            inside += 1
        }
        let percent = Double(inside) * 100 / Double(users)
        #expect(abs(percent - Double(basisPoints) / 100) <= 0.5, "\(percent)%")
    }

    @Test func rolloutAndSplit_areIndependent() throws {
        let set = try ruleSet(
            #"{"flags": {"f": {"cases": [{"when": {"rollout": {"percent": 50}}, "split": [{"weight": 1, "value": "a"}, {"weight": 1, "value": "b"}]}], "fallback": "none"}}}"#
        )
        var table: [String: Int] = [:]
        for index in 0..<20_000 {
            table[set.evaluate("f", input(context(), user: "u\(index)")).value!.stringValue!, default: 0] += 1
        }
        // Half are out of the rollout; the split divides the other half evenly, not along the rollout's cut.
        #expect(abs(table["none"]! - 10_000) < 400)
        #expect(abs(table["a"]! - 5_000) < 300)
        #expect(abs(table["b"]! - 5_000) < 300)
    }

    @Test func pick_walksCumulativeWeights() {
        #expect(Bucketing.pick("x", weights: [1]) == 0)
        let bucket = Bucketing.bucket("x", totalWeight: 10)
        #expect(Bucketing.pick("x", weights: [3, 7]) == (bucket < 3 ? 0 : 1))
    }
}
