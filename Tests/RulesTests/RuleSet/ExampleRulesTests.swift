import Foundation
import Rules
import Testing

@Suite struct ExampleRulesTests {
    static var exampleURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../config/rules.example.json").standardized
    }

    @Test func example_validatesWithNoDiagnosticsAtAll() throws {
        let set = try RuleSetLoader.load(path: Self.exampleURL.path).get()
        #expect(set.warnings.isEmpty, "\(set.warnings)")
        #expect(set.flagKeys.count >= 10)
        #expect(set.triggerKeys.contains("request-review"))
    }

    @Test func embeddedDefault_isTheExampleFile() throws {
        let file = try String(contentsOf: Self.exampleURL, encoding: .utf8)
        #expect(
            DefaultRules.json.trimmingCharacters(in: .whitespacesAndNewlines) == file.trimmingCharacters(in: .whitespacesAndNewlines),
            "run scripts/embed-default-rules.sh")
    }

    @Test func example_usesEverySpecNode() throws {
        let text = try String(contentsOf: Self.exampleURL, encoding: .utf8)
        for node in [
            "all", "any", "none", "not", "atLeast", "ref", "always", "flag", "counter", "maxCount", "timeSince", "cooldown",
            "sinceLaunch", "eventExists", "eventDate", "dateRange", "hourIn", "weekday", "segment", "segments",
            "subscription", "attr", "donations", "lastDonation", "firstDonation", "lastDonationVersion", "firstDonationVersion",
            "appVersion", "rollout", "prerequisite", "display", "backoff", "nightHours", "history", "between", "tolerance",
            "$counter", "pick"
        ] {
            #expect(text.contains("\"\(node)\":"), "\(node) unused")
        }
    }

    @Test func promoBanner_preset() throws {
        let set = try RuleSetLoader.load(text: DefaultRules.json).get()
        let launched = context { $0.launchedAt = t0 - 29_000 }
        #expect(set.evaluate("promo-banner", input(launched)).value == false)
        let ready = context { $0.launchedAt = t0 - 30_000 }
        #expect(set.evaluate("promo-banner", input(ready)).value == true)
        let shownTwice = context {
            $0.launchedAt = t0 - day
            $0.counters["promo_banner_count"] = 2
        }
        #expect(set.evaluate("promo-banner", input(shownTwice)).value == false)
        let recently = context {
            $0.launchedAt = t0 - 9 * day
            $0.counters["promo_banner_count"] = 1
            $0.events["last_promo_banner"] = t0 - 2 * day
        }
        #expect(set.evaluate("promo-banner", input(recently)).value == false)
        #expect(set.nextChange("promo-banner", input(recently)) == t0 + day)
    }
}
