import API
import Engine
import Foundation
import HTTPServer
import Rules

extension DaemonOptions {
    /// Resolves `serve` arguments: `--config FILE` is read first (it may also come from `SPECD_CONFIG`), then
    /// the environment, then the remaining flags. Unknown flags and keys are errors, never ignored.
    public static func resolve(arguments: [String], environment: [String: String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var flags: [(Setting, String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let (name, inlineValue) = splitFlag(argument)
            guard name == "--config" || settings.contains(where: { $0.flag == name }) else {
                throw UsageError("unknown option '\(argument)'")
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                index += 1
                guard index < arguments.count else { throw UsageError("option '\(name)' needs a value") }
                value = arguments[index]
            }
            if name == "--config" {
                options.configFile = value
            } else if let setting = settings.first(where: { $0.flag == name }) {
                flags.append((setting, value))
            }
            index += 1
        }
        if options.configFile == nil { options.configFile = environment["SPECD_CONFIG"] }
        if let path = options.configFile { try options.applyConfigFile(path) }
        for setting in settings {
            if let value = environment[setting.environment] { try setting.apply(&options, value) }
        }
        for (setting, value) in flags { try setting.apply(&options, value) }
        options.settleIdlePoll()
        try options.validateCluster()
        // Without tokens anyone who can connect could write; so without tokens, loopback only (docs/api.md,
        // "Conventions").
        if options.tokens.isEmpty, !options.server.isLoopback {
            throw UsageError("refusing to listen on \(options.server.host) without tokens: configure tokens or use a loopback address")
        }
        return options
    }

    static func splitFlag(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    mutating func applyConfigFile(_ path: String) throws(UsageError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read config file '\(path)'")
        }
        let document: JSONValue
        do {
            document = try JSONParser().parse(Array(data))
        } catch {
            throw UsageError("config file '\(path)': \(error)")
        }
        guard let object = document.objectValue else { throw UsageError("config file '\(path)' must hold a JSON object") }
        for (key, value) in object {
            if key == "limits" {
                try applyLimits(value, path: path)
                continue
            }
            if key == "streams" {
                guard let streams = value.objectValue else { throw UsageError("config file '\(path)': 'streams' must be an object") }
                for (name, member) in streams {
                    guard let apply = Self.streamKeys[name] else { throw UsageError("config file '\(path)': unknown key 'streams.\(name)'") }
                    guard let number = member.numberValue?.int, number > 0 else {
                        throw UsageError("config file '\(path)': 'streams.\(name)' must be a positive integer")
                    }
                    apply(&self, number)
                }
                continue
            }
            if key == "cluster" {
                try applyCluster(value, path: path)
                continue
            }
            if key == "tokens" {
                tokens = try Self.parseTokens(value, path: path)
                continue
            }
            if key == "cors" {
                cors = try Self.parseCORS(value, path: path)
                continue
            }
            if key == "webhooks" {
                webhooks = try Self.parseWebhooks(value, path: path)
                continue
            }
            guard let setting = Self.settings.first(where: { $0.configKey == key }) else {
                throw UsageError("config file '\(path)': unknown key '\(key)'")
            }
            let text: String
            switch value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            default: throw UsageError("config file '\(path)': '\(key)' must be a string or a number")
            }
            try setting.apply(&self, text)
        }
    }

    static func parseTokens(_ value: JSONValue, path: String) throws(UsageError) -> [Token] {
        guard case .array(let items) = value else { throw UsageError("config file '\(path)': 'tokens' must be an array") }
        var tokens: [Token] = []
        for (index, item) in items.enumerated() {
            let at = "config file '\(path)': tokens[\(index)]"
            guard case .object(let fields) = item, case .string(let name)? = fields["name"], case .string(let secret)? = fields["secret"],
                case .array(let scopeValues)? = fields["scopes"]
            else { throw UsageError("\(at) needs name, secret and scopes") }
            for key in fields.keys where !["name", "secret", "scopes"].contains(key) { throw UsageError("\(at): unknown key '\(key)'") }
            guard secret.utf8.count >= 16 else { throw UsageError("\(at).secret must be at least 16 characters") }
            var scopes: Set<Scope> = []
            for scope in scopeValues {
                guard let parsed = scope.stringValue.flatMap(Scope.init(rawValue:)) else {
                    throw UsageError("\(at).scopes: each scope is evaluate, write or admin")
                }
                scopes.insert(parsed)
            }
            guard !tokens.contains(where: { $0.name == name }) else { throw UsageError("\(at).name '\(name)' is used twice") }
            // One secret for two tokens would make the scopes a request gets depend on the list's order. The
            // message names the tokens, never the secret.
            let token = Token(name: name, secret: secret, scopes: scopes)
            if let twin = tokens.first(where: { $0.hasSameSecret(as: token) }) {
                throw UsageError("\(at) ('\(name)') has the same secret as token '\(twin.name)'; each token needs its own secret")
            }
            tokens.append(token)
        }
        return tokens
    }

    private mutating func applyLimits(_ value: JSONValue, path: String) throws(UsageError) {
        guard let limits = value.objectValue else { throw UsageError("config file '\(path)': 'limits' must be an object") }
        for (key, member) in limits {
            if let setting = Self.settings.first(where: { $0.configKey == "limits." + key }) {
                guard let number = member.numberValue?.int, number > 0 else {
                    throw UsageError("config file '\(path)': 'limits.\(key)' must be a positive integer")
                }
                try setting.apply(&self, String(number))
                continue
            }
            guard let apply = Self.limitKeys[key] else { throw UsageError("config file '\(path)': unknown key 'limits.\(key)'") }
            // The answer cache is the one limit that 0 turns off: a budget, not a cap requests could be refused by.
            if key == "answerCacheBytes" {
                guard let number = member.numberValue?.int, number >= 0 else {
                    throw UsageError("config file '\(path)': 'limits.\(key)' must be an integer of 0 or more")
                }
                apply(&self, number)
                continue
            }
            guard let number = member.numberValue?.int, number > 0 else {
                throw UsageError("config file '\(path)': 'limits.\(key)' must be a positive integer")
            }
            apply(&self, number)
        }
    }
}
