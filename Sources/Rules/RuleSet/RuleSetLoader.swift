import Foundation

/// Reads rule sets from disk: one JSON file, or every `*.json` in a directory (sorted by name), merged section by
/// section; a key defined in two files is an error naming both.
public enum RuleSetLoader {
    public static func load(path: String, format: RuleSetCompiler.Format = .auto) -> Result<RuleSet, RuleSetError> {
        switch readDocument(path: path) {
        case .failure(let error): return .failure(error)
        case .success(let document): return RuleSetCompiler.compile(document, format: format)
        }
    }

    public static func load(text: String, name: String = "rules") -> Result<RuleSet, RuleSetError> {
        switch parse(Array(text.utf8), file: name) {
        case .failure(let error): return .failure(error)
        case .success(let document): return RuleSetCompiler.compile(document)
        }
    }

    /// The merged document behind a path, before validation.
    public static func readDocument(path: String) -> Result<JSONValue, RuleSetError> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(RuleSetError([Diagnostic(.error, path: "", code: "file_not_found", message: "no such file or directory", file: path)]))
        }
        guard isDirectory.boolValue else {
            return readFile(path)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        guard !names.isEmpty else {
            return .failure(
                RuleSetError([Diagnostic(.error, path: "", code: "file_not_found", message: "no *.json files in the directory", file: path)]))
        }
        var merged = JSONObject()
        var owners: [String: String] = [:]
        var diagnostics: [Diagnostic] = []
        for name in names {
            let file = (path as NSString).appendingPathComponent(name)
            switch readFile(file) {
            case .failure(let error):
                diagnostics += error.diagnostics
            case .success(let document):
                guard case .object(let root) = document else {
                    diagnostics.append(Diagnostic(.error, path: "", code: "wrong_type", message: "a rule file is a JSON object", file: file))
                    continue
                }
                for (section, value) in root {
                    guard case .object(let entries) = value else {
                        // Checked here, where the file is known: stored as is, a later file's object replaced it
                        // and the directory passed, or it replaced an earlier object and the error named no file.
                        if RuleSetCompiler.objectSections.contains(section) {
                            diagnostics.append(
                                Diagnostic(.error, path: "/" + section, code: "wrong_type", message: "'\(section)' must be an object", file: file))
                        } else {
                            merged[section] = value
                        }
                        continue
                    }
                    var target = merged[section]?.objectValue ?? [:]
                    for (key, entry) in entries {
                        let pointer = JSONPointer("/" + section).appending(key).text
                        if let owner = owners[pointer] {
                            diagnostics.append(
                                Diagnostic(
                                    .error, path: pointer, code: "duplicate_key",
                                    message: "'\(key)' is defined in both \(owner) and \(file)", file: file))
                            continue
                        }
                        owners[pointer] = file
                        target[key] = entry
                    }
                    merged[section] = .object(target)
                }
            }
        }
        return diagnostics.isEmpty ? .success(.object(merged)) : .failure(RuleSetError(diagnostics))
    }

    private static func readFile(_ path: String) -> Result<JSONValue, RuleSetError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(RuleSetError([Diagnostic(.error, path: "", code: "unreadable", message: "cannot read the file", file: path)]))
        }
        return parse(Array(data), file: path)
    }

    static func parse(_ bytes: [UInt8], file: String) -> Result<JSONValue, RuleSetError> {
        do {
            return .success(try JSONParser(maxDepth: 64, maxBytes: 64 << 20).parse(bytes))
        } catch {
            return .failure(RuleSetError([Diagnostic(.error, path: "", code: "invalid_json", message: error.description, file: file)]))
        }
    }
}
