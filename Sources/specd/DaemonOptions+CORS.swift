import API
import Rules

extension DaemonOptions {
    /// `cors: {"origins": ["https://app.example", ...]}`: the origins whose pages may call every route from a browser
    /// (docs/api.md, "Browsers and CORS"). `["*"]` allows any origin; an entry that is not `scheme://host[:port]` is
    /// a configuration error naming it, so a typo never silently locks a web app out (or lets every origin in).
    static func parseCORS(_ value: JSONValue, path: String) throws(UsageError) -> CORSPolicy {
        guard case .object(let fields) = value else { throw UsageError("config file '\(path)': 'cors' must be an object with 'origins'") }
        for key in fields.keys where key != "origins" { throw UsageError("config file '\(path)': unknown key 'cors.\(key)'") }
        guard case .array(let items)? = fields["origins"] else {
            throw UsageError("config file '\(path)': 'cors.origins' must be an array of origins such as \"https://app.example\"")
        }
        var entries: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw UsageError("config file '\(path)': cors.origins[\(index)] must be a string") }
            entries.append(text)
        }
        do throws(CORSPolicy.OriginError) {
            return try CORSPolicy.listing(entries)
        } catch {
            switch error {
            case .wildcardNotAlone:
                throw UsageError("config file '\(path)': cors.origins holds \"*\" beside other origins; \"*\" must stand alone")
            case .malformed(let message):
                let index = entries.firstIndex { (try? CORSPolicy.normalizedOrigin($0)) == nil } ?? 0
                throw UsageError("config file '\(path)': cors.origins[\(index)]: \(message)")
            }
        }
    }
}
