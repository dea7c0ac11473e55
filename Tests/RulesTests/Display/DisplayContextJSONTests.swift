import Rules
import Testing

/// Display state in the context JSON: what `GET /v1/users/{u}` answers reads back as the same state.
@Suite struct DisplayContextJSONTests {
    @Test func displayState_roundTripsThroughTheContextJSON() throws {
        var user = UserContext()
        user.display["tip"] = DisplayState(
            shownCount: 2, firstShown: t0, lastShown: t0 + hour, invalidated: .init(reason: .displayCountExceeded, at: t0 + hour))
        user.display["other"] = DisplayState(shownCount: 0)
        let json = ContextJSON.encode(user: "u", user)
        #expect(json["display"]?["tip"]?["invalidated"]?["reason"] == "displayCountExceeded")
        #expect(try ContextJSON.decode(json).display == user.display)
        #expect(ContextJSON.encode(user: "u", UserContext())["display"] == nil)
    }

    @Test(arguments: [
        (#"{"display": {"t": {"shownCount": -1}}}"#, "context.display.t.shownCount"),
        (#"{"display": {"t": {"shownCount": 1.5}}}"#, "context.display.t.shownCount"),
        (#"{"display": {"t": {"lastShown": "soon"}}}"#, "context.display.t.lastShown"),
        (#"{"display": {"t": {"invalidated": {"reason": "bored", "at": "2026-01-01T00:00:00Z"}}}}"#, "context.display.t.invalidated.reason"),
        (#"{"display": {"t": {"invalidated": {"reason": "dismissed"}}}}"#, "context.display.t.invalidated.at"),
        (#"{"display": {"t": {"seen": true}}}"#, "context.display.t.seen"),
        (#"{"display": []}"#, "context.display")
    ])
    func badDisplayState_isRefusedNamingTheField(json: String, field: String) throws {
        #expect(throws: ContextJSON.FieldError.self) { try ContextJSON.decode(JSONParser().parse(json)) }
        do {
            _ = try ContextJSON.decode(JSONParser().parse(json))
        } catch let error as ContextJSON.FieldError {
            #expect(error.field == field)
        }
    }

    /// `POST /v1/evaluate` with a `user` lays the inline context over the stored one, display state included.
    @Test func overlay_keepsStoredDisplay_andTheInlineOneWins() {
        var stored = UserContext()
        stored.display["a"] = DisplayState(shownCount: 1)
        stored.display["b"] = DisplayState(shownCount: 1)
        var inline = UserContext()
        inline.display["b"] = DisplayState(shownCount: 5)
        let merged = stored.overlaid(by: inline)
        #expect(merged.display["a"]?.shownCount == 1)
        #expect(merged.display["b"]?.shownCount == 5)
    }
}
