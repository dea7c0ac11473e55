import Engine
import Foundation
import Rules

/// JUnit XML for CI systems: one `<testsuite>` per scenario × configuration, one `<testcase>` per assertion, a
/// `<failure>` with expected and actual for each that failed. A file (or path) that could not be run is a suite of its
/// own with one `<error>`: a CI job that reads only the report must not count it as nothing to test.
enum JUnitReport {
    /// A file or path given to `specd test` that could not be run, and why.
    struct FileError: Equatable {
        let file: String
        let message: String
    }

    static func xml(_ runs: [ScenarioRun], fileErrors: [FileError] = []) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let total = runs.reduce(0) { $0 + $1.assertionCount } + fileErrors.count
        let failures = runs.reduce(0) { $0 + $1.failureCount }
        out += #"<testsuites name="specd test" tests="\#(total)" failures="\#(failures)" errors="\#(fileErrors.count)">"# + "\n"
        for error in fileErrors {
            let file = escape(error.file)
            out += "  <testsuite name=\"\(file)\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.0000\" file=\"\(file)\">\n"
            out += "    <testcase classname=\"\(file)\" name=\"load\" time=\"0.0000\">\n"
            out += "      <error message=\"\(escape(error.message))\">\(escape(error.message))</error>\n    </testcase>\n  </testsuite>\n"
        }
        for run in runs {
            let seconds = run.steps.reduce(Duration.zero) { $0 + $1.elapsed }
            out += "  <testsuite name=\"\(escape("\(run.scenario) [\(run.configuration)]"))\" tests=\"\(run.assertionCount)\" "
            out += "failures=\"\(run.failureCount)\" errors=\"0\" time=\"\(format(seconds))\" file=\"\(escape(run.file))\">\n"
            for step in run.steps {
                for assertion in step.assertions {
                    out += "    <testcase classname=\"\(escape("\(run.scenario).\(run.configuration)"))\" "
                    out += "name=\"\(escape("\(step.name): \(assertion.label)"))\" time=\"\(format(step.elapsed))\""
                    if assertion.passed {
                        out += "/>\n"
                    } else {
                        let message = TestCommand.failureText(assertion)
                        out += ">\n      <failure message=\"\(escape(message))\">\(escape(message))</failure>\n    </testcase>\n"
                    }
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    private static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.4f", seconds)
    }

    /// XML text and attribute escaping; characters XML 1.0 cannot hold at all become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                let allowed = (0x20...0xD7FF).contains(value) || (0xE000...0xFFFD).contains(value) || value >= 0x10000
                out.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return out
    }
}
