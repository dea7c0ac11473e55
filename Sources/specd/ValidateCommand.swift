import API
import Engine
import Foundation
import HTTPServer
import Rules

/// `specd validate FILE|DIR... [--json]`: every diagnostic of every rule set; exit 1 when any has an error.
enum ValidateCommand {
    static func run(arguments: [String]) -> Int32 {
        var json = false
        var paths: [String] = []
        for argument in arguments {
            if argument == "--json" {
                json = true
            } else if argument.hasPrefix("-") {
                return CommandLineInterface.usageFailure("unknown option '\(argument)' for validate")
            } else {
                paths.append(argument)
            }
        }
        guard !paths.isEmpty else { return CommandLineInterface.usageFailure("validate needs at least one FILE or DIR") }
        var failed = false
        var results: [JSONValue] = []
        for path in paths {
            let diagnostics: [Diagnostic]
            var summary = ""
            switch RuleSetLoader.load(path: path) {
            case .success(let set):
                diagnostics = set.warnings
                summary = "\(set.flagKeys.count) flags, \(set.triggerKeys.count) triggers, version \(set.version)"
            case .failure(let error):
                diagnostics = error.diagnostics
                failed = true
            }
            let errors = diagnostics.filter { $0.severity == .error }.count
            if json {
                results.append(["path": .string(path), "valid": .bool(errors == 0), "diagnostics": .array(diagnostics.map(\.json))])
            } else {
                for diagnostic in diagnostics {
                    print(
                        "\(diagnostic.file ?? path): \(diagnostic.severity.rawValue): \(diagnostic.path.isEmpty ? "/" : diagnostic.path): \(diagnostic.message) [\(diagnostic.code)]"
                    )
                }
                let warnings = diagnostics.count - errors
                print(
                    errors == 0
                        ? "\(path): valid (\(summary)), \(warnings) warning(s)" : "\(path): invalid, \(errors) error(s), \(warnings) warning(s)")
            }
        }
        if json { print(JSONWriter.string(["results": .array(results)])) }
        return failed ? 1 : 0
    }
}
