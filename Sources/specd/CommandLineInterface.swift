import API
import Engine
import Foundation
import HTTPServer

/// Subcommand dispatch for the `specd` executable (README, "Command line"), here so it can be tested.
public enum CommandLineInterface {
    /// The subcommand the arguments name: `serve` when they start with an option or are empty.
    static func command(of arguments: [String]) -> String { arguments.first.map { $0.hasPrefix("-") ? "serve" : $0 } ?? "serve" }

    /// Whether these arguments run the daemon (not just print its usage): only then is the allocator tuned.
    static func runsDaemon(_ arguments: [String]) -> Bool {
        command(of: arguments) == "serve" && !arguments.contains("--help") && !arguments.contains("-h")
    }

    public static func run(arguments: [String], environment: [String: String]) -> Int32 {
        var rest = arguments
        let command = command(of: rest)
        if rest.first == command { rest.removeFirst() }
        switch command {
        case "serve":
            if rest.contains("--help") || rest.contains("-h") {
                print(usage)
                return 0
            }
            let options: DaemonOptions
            do {
                options = try DaemonOptions.resolve(arguments: rest, environment: environment)
            } catch {
                return usageFailure(error.message)
            }
            do {
                return try Daemon.assemble(options: options).run()
            } catch {
                let logger = Logger(level: .info)
                switch error {
                case .rules(let failure):
                    for diagnostic in failure.diagnostics {
                        logger.error(
                            "invalid rules",
                            [
                                "file": .string(diagnostic.file ?? options.rulesPath ?? ""), "path": .string(diagnostic.path),
                                "code": .string(diagnostic.code), "message": .string(diagnostic.message)
                            ])
                    }
                    return 1
                case .data(let failure):
                    logger.error(
                        "data directory unusable: refusing to start",
                        ["dataDir": .string(options.dataDirectory), "error": .string(failure.description)])
                    return 2
                case .webhooks(let failure):
                    logger.error("webhook outbox unusable: refusing to start", ["error": .string(failure.description)])
                    return 2
                }
            }
        case "validate":
            return ValidateCommand.run(arguments: rest)
        case "test":
            return TestCommand.run(arguments: rest)
        case "check-data":
            return CheckDataCommand.run(arguments: rest, environment: environment)
        case "reshard":
            return ReshardCommand.run(arguments: rest)
        case "version", "--version":
            print("specd \(Daemon.version)")
            return 0
        case "help", "--help", "-h":
            print(usage)
            return 0
        default:
            return usageFailure("unknown command '\(command)'")
        }
    }

    static func usageFailure(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("specd: \(message)\nRun 'specd --help' for usage.\n".utf8))
        return 1
    }

    public static var usage: String {
        var lines = [
            "specd \(Daemon.version): rule evaluation daemon",
            "",
            "Usage:",
            "  specd [serve] [--config FILE] [options]   run the daemon (default command)",
            "  specd validate FILE|DIR... [--json]       check rule sets; exit 1 on any error",
            "  specd test FILE|DIR... [--junit OUT.xml] [--record] [--timeout SECONDS]",
            "                                            run scenario files; exit 1 on a failed assertion, 2 on a bad file;",
            "                                            a file's runs get SECONDS of wall time, all configurations together (60)",
            "  specd check-data [--data-dir DIR]         verify log segments and snapshots offline; exit 1 on corruption",
            "  specd reshard --from DIR... --to DIR... --members N",
            "                                            move users to their owners under N members (offline); exit 2 on corruption",
            "  specd version                             print the version",
            "  specd --help                              this text",
            "",
            "Options (flag / config file key / environment variable):",
            "  --config FILE  (SPECD_CONFIG)  JSON config file; flags and environment override it"
        ]
        for setting in DaemonOptions.settings {
            lines.append("  \(setting.flag) VALUE  /  \(setting.configKey)  /  \(setting.environment)")
            lines.append("      \(setting.help)")
        }
        lines.append("")
        lines.append("Exit codes: 0 clean stop, 1 bad usage, config or rules, 2 data directory corrupt or unusable.")
        return lines.joined(separator: "\n")
    }
}
