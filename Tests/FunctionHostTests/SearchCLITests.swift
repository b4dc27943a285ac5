import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `functionhost search show|on|off`, run as the built executable against a live server: what
/// it turns on is what clients can then search; what it turns off they no longer can.
@Suite struct SearchCLITests {
    @Test func searchIsTurnedOnChangedAndOffFromTheCommandLine() async throws {
        try await TestServer.run(transport: .socket) { api in
            let port = api.port
            let id = try await api.create("Post", ["title": "可乐 and coffee", "body": "冰镇"])
            let none = try await CLI.functionhost(["search", "show"], port: port)
            #expect(none.status == 0 && none.output == "Search is on for no class.\n", "\(none)")

            let on = try await CLI.functionhost(["search", "on", "Post", "title"], port: port)
            #expect(on.status == 0 && on.output == "Search is on for Post: title.\n", "\(on)")
            let found = try await api.get("/1.1/search/select?clazz=Post&q=%E5%8F%AF%E4%B9%90")
            #expect(found["hits"] == 1 && found["results"]?.arrayValue?.first?["objectId"]?.stringValue == id, "\(found)")
            // body isn't indexed yet: a field query on it is refused, then works once it is.
            let bodyQuery = "/1.1/search/select?clazz=Post&q=body:%E5%86%B0%E9%95%87"
            #expect(try await api.get(bodyQuery)["hits"] != 1)

            let changed = try await CLI.functionhost(["search", "on", "Post", "title", "body", "--json"], port: port)
            let settings = try JSONValue(parsing: Array(changed.output.utf8))
            #expect(changed.status == 0 && settings["fields"] == ["title", "body"], "\(changed)")
            #expect(try await api.get(bodyQuery)["hits"] == 1)
            let shown = try await CLI.functionhost(["search", "show"], port: port)
            #expect(shown.output == "Post: title, body\n", "\(shown)")

            let off = try await CLI.functionhost(["search", "off", "Post"], port: port)
            #expect(off.status == 0 && off.output == "Search is off for Post.\n", "\(off)")
            let refused = try await api.get("/1.1/search/select?clazz=Post&q=coffee")
            #expect(refused.status != .ok && refused["hits"] == nil, "\(refused)")
            #expect(try await CLI.functionhost(["search", "show"], port: port).output == "Search is on for no class.\n")
        }
    }

    @Test func badInputAndAMissingMasterKeyFailWithOneLine() async throws {
        try await TestServer.run(transport: .socket) { api in
            let port = api.port
            _ = try await api.create("Post", ["title": "x"])
            let cases: [([String], String)] = [
                (["search", "on", "Post"], "Missing expected argument '<field> ...'"),
                (["search", "on", "9Post", "title"], "'9Post' is not a class name"),
                (["search", "on", "Post", "a.b"], "'a.b' is not a field name"),
                (["search", "off", "Post!"], "'Post!' is not a class name"),
                // The server's refusals, with their codes.
                (["search", "on", "Post"] + (0...SearchSettings.maxFields).map { "f\($0)" }, "(code "),
            ]
            for (arguments, message) in cases {
                let run = try await CLI.functionhost(arguments, port: port)
                #expect(run.status != 0 && run.errors.contains(message), "\(arguments): \(run)")
            }
            // Attack: the app key in place of the master key changes nothing, and says so on one line.
            for arguments in [["search", "on", "Post", "title"], ["search", "off", "Post"], ["search", "show"]] {
                let run = try await CLI.functionhost(arguments + ["--master-key", "key"], port: port)
                #expect(run.status == 1 && run.errors.split(separator: "\n").count == 1 && run.output.isEmpty, "\(run)")
            }
            // Nor does a client over the admin routes themselves.
            #expect(try await api.put("/1.1/search/classes/Post", ["fields": ["title"]]).status != .ok)
            #expect(try await api.get("/1.1/search/classes").status != .ok)
            let shown = try await CLI.functionhost(["search", "show"], port: port)
            #expect(shown.output == "Search is on for no class.\n", "\(shown)")
        }
    }
}
