import Foundation
import Rules

/// Parse + write of a ~1 KiB context document: our JSON codec against Foundation's JSONSerialization, same run.
enum JSONBenchmark {
    static let document: [UInt8] = Array(
        #"""
        {"user":"u-1842","launchedAt":"2026-01-01T09:00:00Z","tz":"Europe/Paris",
         "counters":{"promo_banner_count":1,"screen_views":42,"rating_prompt_count":0,"editor_opened":7,"purchases":3},
         "events":{"last_promo_banner":"2026-01-02T10:00:00Z","installed":"2025-12-30T08:12:00Z","last_tip_shown":"2026-01-03T11:00:00Z"},
         "flags":{"promo":true,"tips_disabled":false},
         "attributes":{"subscription_status":"premium","plan":{"seats":5,"tier":"team","ratio":0.75},"country":"FR",
                       "email":"someone@example.com","tags":["beta","early","power-user"]},
         "segments":["vip","beta-testers"],
         "donations":{"appStarted":{"count":3,"first":{"at":"2026-01-01T09:00:00Z","appVersion":"1.0"},
                                    "last":{"at":"2026-01-05T09:00:00Z","appVersion":"1.2"},
                                    "recent":["2026-01-01T09:00:00Z","2026-01-03T09:00:00Z","2026-01-05T09:00:00Z"]},
                      "paywallViewed":{"count":1,"first":{"at":"2026-01-04T12:00:00Z","appVersion":"1.2"},
                                       "last":{"at":"2026-01-04T12:00:00Z","appVersion":"1.2"},"recent":["2026-01-04T12:00:00Z"]}}}
        """#.utf8)

    static func run() {
        print("json: parse + write of a \(document.count)-byte context (best of 5 rounds)")
        let iterations = 50_000
        let parser = JSONParser()
        let ours = Measure.run("specd JSONParser + JSONWriter", operations: iterations) {
            var bytes = 0
            for _ in 0..<iterations {
                let value = try! parser.parse(document)
                bytes &+= JSONWriter.write(value).count
            }
            return bytes
        }
        let data = Data(document)
        let foundation = Measure.run("Foundation JSONSerialization (both ways)", operations: iterations) {
            var bytes = 0
            for _ in 0..<iterations {
                let object = try! JSONSerialization.jsonObject(with: data)
                bytes &+= try! JSONSerialization.data(withJSONObject: object).count
            }
            return bytes
        }
        print(String(format: "  ratio: specd is %.2fx the speed of JSONSerialization", foundation / ours))
    }
}
