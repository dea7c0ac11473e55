import Engine
import Foundation
import Testing

@testable import specd

@Suite struct DaemonOptionsClusterTests {
    func writeConfig(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "specd-cluster-config-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func resolve_clusterInConfigFile_buildsTheMembership() throws {
        let path = try writeConfig(#"{"cluster": {"self": 1, "members": ["http://specd-0.specd:8080", "http://specd-1.specd:8080"]}}"#)
        let options = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        #expect(options.membership?.selfIndex == 1)
        #expect(options.membership?.members.map(\.host) == ["specd-0.specd", "specd-1.specd"])
    }

    @Test func resolve_clusterFromEnvironmentAndFlags_podNameGivesTheOrdinal() throws {
        let options = try DaemonOptions.resolve(
            arguments: ["--cluster-self", "specd-2"],
            environment: ["SPECD_CLUSTER_MEMBERS": "http://a:1, http://b:2,http://c:3", "SPECD_CLUSTER_SELF": "0"])
        #expect(options.membership?.selfIndex == 2)
        #expect(options.membership?.members.map(\.port) == [1, 2, 3])
    }

    @Test func resolve_noCluster_runsAlone() throws {
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).membership == nil)
    }

    @Test(arguments: [
        (#"{"cluster": {"self": 3, "members": ["http://a:1", "http://b:1"]}}"#, "cluster.self (3) must be below the number of cluster.members (2)"),
        (#"{"cluster": {"self": 0}}"#, "cluster.members is required when cluster.self is set"),
        (#"{"cluster": {"members": ["http://a:1"]}}"#, "cluster.self is required when cluster.members is set"),
        (
            #"{"cluster": {"self": "x", "members": ["http://a:1"]}}"#,
            "cluster.self must be a member index (0, 1, ...) or a pod name ending in one, not 'x'"
        ),
        (#"{"cluster": {"self": 0, "members": ["https://a:1"]}}"#, "cluster.members[0] must be an http://HOST:PORT URL, not 'https://a:1'"),
        (#"{"cluster": {"self": 0, "members": ["http://a:1", "http://a:1"]}}"#, "cluster.members[1] 'http://a:1' is listed twice"),
        (#"{"cluster": {"self": 0, "members": []}}"#, "cluster.members must list 1-1024 member URLs")
    ])
    func resolve_badCluster_namesTheField(config: String, message: String) throws {
        let path = try writeConfig(config)
        #expect(throws: UsageError(message)) { try DaemonOptions.resolve(arguments: ["--config", path], environment: [:]) }
    }

    @Test func resolve_unknownClusterKey_isAnError() throws {
        let path = try writeConfig(#"{"cluster": {"self": 0, "member": []}}"#)
        #expect(throws: UsageError("config file '\(path)': unknown key 'cluster.member'")) {
            try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        }
    }
}
