import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Files and cloud functions in the LAS and MaxLeap dialects (`las-maxleap-dialects.md` §10, §11).
@Suite struct DialectFileFunctionTests {
    // DOC:CloudData.md:665-690: PUT /2.0/files/<fileName> with the raw bytes → 201
    // {"name","hash","createTime","region","uid","url","size","contentType"}, the stored name differing from the one sent.
    // DOC:CloudData.md:694-705: attach with {"__type":"File","name":…,"url":…}.
    // DOC:CloudData.md:707-719: DELETE /2.0/files with X-ML-Fid: <name> and the master key → 204.
    @Test(arguments: DialectCase.families)
    func uploadAttachAndDeleteByName(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            var headers = dialect.client
            headers[.contentType] = "text/plain"
            let uploaded = try await api.send(.put, dialect.path("files/hello.txt"), headers: headers, body: "hello, world")
            #expect(uploaded.status == .created, "\(uploaded)")
            let name = try #require(uploaded["name"]?.stringValue, "\(uploaded)")
            #expect(name != "hello.txt" && name.hasSuffix(".txt"))
            #expect(uploaded["size"] == 12 && uploaded["contentType"]?.stringValue?.hasPrefix("text/plain") == true, "\(uploaded)")
            #expect(uploaded["createTime"]?.intValue != nil && uploaded["uid"]?.stringValue != nil)
            let url = try #require(uploaded["url"]?.stringValue)
            let path = try #require(URL(string: url)?.path)
            #expect(try await api.get(path, headers: Headers.none).text == "hello, world")
            // The file in an object, by its name only, as MaxLeap's clients write it.
            let post = try await api.post(
                dialect.path("classes/Post"), headers: dialect.client, ["attachment": ["__type": "File", "name": .string(name), "url": .string(url)]])
            let postId = try #require(post.objectId, "\(post)")
            let fetched = try await api.get(dialect.path("classes/Post/\(postId)"), headers: dialect.client)
            #expect(fetched["attachment"]?["name"] == .string(name) && fetched["attachment"]?["url"] == .string(url), "\(fetched)")
            // LeanCloud's clients see the same file.
            #expect(try await api.fetch("Post", postId)["attachment"]?["objectId"] == uploaded["uid"])
            // A client's key doesn't delete files (the master key's, as on LeanCloud).
            var fid = dialect.client
            fid[HTTPField.Name("X-\(dialect.family)-Fid")!] = name
            expectDialectError(try await api.send(.delete, dialect.path("files"), headers: fid), code: 403, status: .forbidden)
            var masterFid = dialect.master
            masterFid[HTTPField.Name("X-LAS-Fid")!] = name
            let deleted = try await api.send(.delete, dialect.path("files"), headers: masterFid)
            #expect(deleted.status == .noContent && deleted.text.isEmpty, "\(deleted)")
            #expect(try await api.get(path, headers: Headers.none).status == .notFound)
            expectDialectError(try await api.send(.delete, dialect.path("files"), headers: masterFid), code: 101)
            expectDialectError(try await api.send(.delete, dialect.path("files"), headers: dialect.master), code: 107)
        }
    }

    // JS:lib/file.js:37-54 with JS:lib/utils.js:426-452: the JS SDK sends {"base64":…} plus its transport fields,
    // without a JSON content type; PY:leapcloud/file_.py:127-160: {"base64","_ContentType","mime_type"}.
    @Test(arguments: DialectCase.families)
    func base64Uploads(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let body = #"{"base64":"aGk=","_ContentType":"text/plain","_ApplicationId":"app","_ApplicationKey":"key","_method":"PUT"}"#
            var headers = dialect.client
            headers[.contentType] = "text/plain;charset=UTF-8"
            let uploaded = try await api.send(.put, dialect.path("files/a.txt"), headers: headers, body: body)
            #expect(uploaded.status == .created && uploaded["size"] == 2, "\(uploaded)")
            let url = try #require(uploaded["url"]?.stringValue.flatMap(URL.init(string:)))
            #expect(try await api.get(url.path, headers: Headers.none).text == "hi")
        }
    }

    // DOC:CloudCode.md:5-45 / JS:lib/cloudcode.js:21-33: POST /2.0/functions/<name> answers the function's result
    // as the whole body (the helper sends X-ZCloud-AppId / X-ZCloud-APIKey).
    @Test(arguments: DialectCase.all)
    func functionsAnswerTheirRawResult(dialect: DialectCase) async throws {
        var functions = FunctionRegistry()
        functions.define("hello") { request in ["greeting": .string("hi \(request.params["name"]?.stringValue ?? "?")")] as JSONValue }
        functions.define("who") { request -> JSONValue in request.currentUser?["username"] ?? "nobody" }
        functions.define("refuse") { _ -> String in throw CloudError(code: 123, message: "Not today.", status: .conflict) }
        functions.define("master") { request -> Bool in request.isMaster }
        try await TestServer.run(functions: functions) { api in
            let hello = try await api.post(dialect.path("functions/hello"), headers: dialect.client, ["name": "ada"])
            #expect(hello.status == .ok && hello.json == ["greeting": "hi ada"], "\(hello)")
            let signup = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let token = try #require(signup["sessionToken"]?.stringValue)
            #expect(try await api.post(dialect.path("functions/who"), headers: dialect.session(token), [:]).json == "ada")
            let refused = try await api.post(dialect.path("functions/refuse"), headers: dialect.client, [:])
            expectDialectError(refused, code: 123, status: .conflict)
            expectDialectError(try await api.post(dialect.path("functions/none"), headers: dialect.client, [:]), code: 1)
            // A client's body doesn't make a function call master's.
            #expect(try await api.post(dialect.path("functions/master"), headers: dialect.client, ["_MasterKey": "master"]).json == false)
            #expect(try await api.post(dialect.path("functions/master"), headers: dialect.master, [:]).json == true)
            // las-maxleap-dialects.md §14: LeanCloud-only endpoints are not applied to dialect paths.
            expectDialectError(try await api.post(dialect.path("batch/save"), headers: dialect.client, ["requests": []]), code: 404)
            expectDialectError(try await api.post(dialect.path("fileTokens"), headers: dialect.client, ["name": "a.txt"]), code: 404)
            // Jobs: the host has none yet.
            expectDialectError(try await api.post(dialect.path("jobs/nightly"), headers: dialect.client, [:]), code: 404, status: .notFound)
        }
    }

    // las-maxleap-dialects.md §11: class hooks run for dialect writes as for LeanCloud's (hooks, not the client, decide).
    @Test(arguments: DialectCase.families)
    func hooksRunForDialectWrites(dialect: DialectCase) async throws {
        let events = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions.hooks.beforeSave("Order") { request in request.object["total"] = .int((request.object["quantity"]?.intValue ?? 0) * 5) }
        functions.hooks.afterSave("Order") { _ in events.withLock { $0.append("afterSave") } }
        functions.hooks.beforeDelete("Order") { _ in throw HookError(message: "Orders stay.") }
        try await TestServer.run(functions: functions) { api in
            let created = try await api.post(dialect.path("classes/Order"), headers: dialect.client, ["quantity": 2])
            #expect(created.status == .ok && created["total"] == 10, "\(created)")
            let id = try #require(created.objectId)
            let batch = try await api.post(
                dialect.path("batch"), headers: dialect.client,
                ["requests": [["method": "POST", "path": "classes/Order", "body": ["quantity": 3]],
                              ["method": "DELETE", "path": .string("classes/Order/\(id)")]]])
            let entries = try #require(batch.json?.arrayValue, "\(batch)")
            #expect(entries.first?["total"] == 15 && entries.last?["errorCode"] != nil, "\(batch)")
            expectDialectError(try await api.delete(dialect.path("classes/Order/\(id)"), headers: dialect.client), code: 142)
            #expect(events.withLock { $0 } == ["afterSave", "afterSave"])
        }
    }
}
