import Foundation
import Testing

@testable import API
@testable import specd

/// The `cors` setting: parsed at start, every mistake a configuration error naming the entry.
@Suite struct CORSConfigTests {
    func writeConfig(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "specd-cors-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func resolve_withoutCORS_onlyOpenFeatureAllowsOtherOrigins() throws {
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).cors == .openFeatureOnly)
    }

    @Test func resolve_origins_areNormalizedAndCoverEveryRoute() throws {
        let path = try writeConfig(#"{"cors": {"origins": ["https://App.Example:443", "http://localhost:3000"]}}"#)
        let options = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        #expect(options.cors == CORSPolicy(origins: .listed(["https://app.example", "http://localhost:3000"])))
        let wildcard = try writeConfig(#"{"cors": {"origins": ["*"]}}"#)
        #expect(try DaemonOptions.resolve(arguments: ["--config", wildcard], environment: [:]).cors == CORSPolicy(origins: .any))
    }

    @Test(arguments: [
        (
            #"{"cors": {"origins": ["https://ok.example", "https://app.example/"]}}"#,
            "cors.origins[1]: 'https://app.example/' is not scheme://host[:port]"
        ),
        (#"{"cors": {"origins": ["app.example"]}}"#, "cors.origins[0]: 'app.example' is not scheme://host[:port]"),
        (#"{"cors": {"origins": ["https://app.example:99999"]}}"#, "cors.origins[0]: 'https://app.example:99999' has an invalid port"),
        (#"{"cors": {"origins": ["*", "https://app.example"]}}"#, "cors.origins holds \"*\" beside other origins"),
        (#"{"cors": {"origins": [3]}}"#, "cors.origins[0] must be a string"),
        (#"{"cors": {"origins": "https://app.example"}}"#, "'cors.origins' must be an array"),
        (#"{"cors": {"origin": ["https://app.example"]}}"#, "unknown key 'cors.origin'"),
        (#"{"cors": ["https://app.example"]}"#, "'cors' must be an object")
    ])
    func resolve_badCORS_isAConfigurationErrorNamingTheField(config: String, fragment: String) throws {
        let path = try writeConfig(config)
        do {
            _ = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
            Issue.record("accepted \(config)")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func serve_badOrigin_exitsOneNamingTheField() throws {
        let path = try writeConfig(#"{"cors": {"origins": ["https://app.example/path"]}}"#)
        let process = Process()
        process.executableURL = DaemonProcessTests.binary
        process.arguments = ["serve", "--config", path, "--port", "0", "--data-dir", NSTemporaryDirectory() + "specd-cors-\(UUID().uuidString)"]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(text.contains("cors.origins[0]"), "\(text)")
    }
}
