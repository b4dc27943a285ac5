import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The schema page saves a class's whole form at once: every action's rule as it reads it and
/// every field's flags. Saved unchanged, that body leaves the settings as they were, for a
/// class of the app's and for `_User` with its private fields; one flag changed changes only it.
@Suite struct ConsoleSchemaPageTests {
    /// The body the page sends for `className` as it shows it: the rules read, each field's flags
    /// (`user_private` only for `_User`), with `change` applied to one field's flags.
    static func pageBody(
        _ browser: ConsoleBrowser, _ className: String, change: (field: String, flag: String)? = nil
    ) async throws -> JSONValue {
        let fields = try await browser.send(.get, "/console/api/1.1/schemas/\(className)").json?.objectValue ?? [:]
        let settings = try await browser.send(.get, "/console/api/1.1/schemas/\(className)/permissions")
        var schema: [String: JSONValue] = [:]
        for field in fields.keys where !["objectId", "createdAt", "updatedAt", "ACL"].contains(field) {
            let shown = settings["schema"]?[field]
            var flags: [String: JSONValue] = [:]
            for flag in ["hidden", "read_only"] + (className == "_User" ? ["user_private"] : []) {
                flags[flag] = .bool(shown?[flag] == true)
            }
            if let change, change.field == field { flags[change.flag] = .bool(!(flags[change.flag] == true)) }
            schema[field] = .object(flags)
        }
        return ["permissions": settings["permissions"] ?? [:], "schema": .object(schema)]
    }

    @Test func savingTheFormUnchangedChangesNothingAndOneFlagChangesOnlyIt() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "secret-pass", "email": "ada@example.com"])
            _ = try await api.create("Todo", ["title": "Milk", "priority": 1])
            for className in ["_User", "Todo"] {
                let before = try await api.get("/1.1/schemas/\(className)/permissions", headers: Headers.master)
                let saved = try await browser.send(.put, "/console/api/1.1/schemas/\(className)", try await Self.pageBody(browser, className))
                #expect(saved.status == .ok, "\(className): \(saved)")
                let after = try await api.get("/1.1/schemas/\(className)/permissions", headers: Headers.master)
                #expect(after.json == before.json, "\(className): \(before) became \(after)")
            }
            let hidden = try await browser.send(
                .put, "/console/api/1.1/schemas/Todo", try await Self.pageBody(browser, "Todo", change: ("priority", "hidden")))
            #expect(hidden["schema"] == ["priority": ["hidden": true]], "\(hidden)")
            // A client no longer sees it; the title is as it was.
            let seen = try await api.find("Todo").results.first
            #expect(seen?["priority"] == nil && seen?["title"] == "Milk", "\(String(describing: seen))")
        }
    }
}
