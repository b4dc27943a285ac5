import DataAPI
import Foundation
import HTTPTypes
import Hooks
import TestSupport
import Testing

@testable import FunctionHost

/// onAuthData and onVerified from Swift, JavaScript and the platform-style endpoints.
@Suite struct UserHookTests {
    @Test func onAuthDataRewritesOrRefusesProvidersFromSwift() async throws {
        var functions = FunctionRegistry()
        functions.hooks.onAuthData { request in
            guard case .object(var providers)? = request.object["authData"] else { return }
            // A code exchanged for the provider's id, as a real hook would with the provider.
            if let code = providers["partner"]?["code"]?.stringValue {
                providers["partner"] = ["uid": .string("partner-" + code)]
            }
            if providers["banned"] != nil { throw HookError(code: 1, message: "That provider is not accepted.", status: 401) }
            request.object["authData"] = .object(providers)
        }
        try await TestServer.run(functions: functions) { api in
            let first = try await api.post("/1.1/users", ["authData": ["partner": ["code": "42"]]])
            #expect(first.status == .created, "\(first)")
            let me = try await api.get("/1.1/users/me", headers: Headers.session(try #require(first["sessionToken"]?.stringValue)))
            #expect(me["authData"]?["partner"] == ["uid": "partner-42"], "\(me)")
            // The same code logs the same account in: the lookup uses what the hook made of it.
            let again = try await api.post("/1.1/users", ["authData": ["partner": ["code": "42"]]])
            #expect(again.status == .ok && again.objectId == first.objectId, "\(again)")
            expectError(try await api.post("/1.1/users", ["authData": ["banned": ["uid": "x"]]]), code: 1, status: .unauthorized)
            // Linking runs it too.
            let session = Headers.session(try #require(first["sessionToken"]?.stringValue))
            expectError(
                try await api.put("/1.1/users/\(try #require(first.objectId))", headers: session, ["authData": ["banned": ["uid": "y"]]]),
                code: 1)
        }
    }

    @Test func onAuthDataAndOnVerifiedFromJavaScriptAndThePlatformEndpoints() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            const AV = require('leanengine');
            AV.Cloud.onAuthData(function (request) {
              var authData = request.authData;
              if (authData.weixin && authData.weixin.openid === 'blocked') throw new AV.Cloud.Error('Blocked account.');
              if (authData.weixin) authData.weixin.checked = true;
              return authData;
            });
            AV.Cloud.onVerified('sms', function (request) {
              return new AV.Object('Welcome').save({ user: request.object.id, phone: request.currentUser.get('mobilePhoneNumber') });
            });
            """.write(toFile: directory + "/users.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            let signup = try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "wx-9"]]])
            #expect(signup.status == .created, "\(signup)")
            let me = try await api.get("/1.1/users/me", headers: Headers.session(try #require(signup["sessionToken"]?.stringValue)))
            #expect(me["authData"]?["weixin"]?["checked"] == true, "\(me)")
            let blocked = try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "blocked"]]])
            #expect(blocked.status == .badRequest && blocked["error"]?.stringValue?.contains("Blocked account.") == true, "\(blocked)")

            // The phone flow fires the JavaScript onVerified('sms').
            let user = try await api.post("/1.1/users", ["username": "ada", "password": "pw", "mobilePhoneNumber": "13900000001"])
            _ = try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13900000001"])
            let code = try await Outbox.lastCode(api, to: "13900000001")
            #expect(try await api.post("/1.1/verifyMobilePhone/\(code)", [:]).status == .ok)
            let welcomes = try await api.find("Welcome").results
            #expect(welcomes.count == 1 && welcomes.first?["user"] == user["objectId"], "\(welcomes)")
            #expect(welcomes.first?["phone"] == "13900000001")

            // The same hooks as a storage service calls them, with the hook key.
            var hookHeaders = Headers.client
            hookHeaders[HTTPField.Name("X-LC-Hook-Key")!] = "hook"
            let checked = try await api.post(
                "/1.1/functions/_User/onAuthData", headers: hookHeaders, ["authData": ["weixin": ["openid": "wx-10"]]])
            #expect(checked["result"]?["weixin"]?["checked"] == true, "\(checked)")
            let verified = try await api.post(
                "/1.1/functions/onVerified/sms", headers: hookHeaders,
                ["object": ["objectId": "u1", "mobilePhoneNumber": "13900000002"]])
            #expect(verified["result"] == "ok", "\(verified)")
            #expect(try await api.find("Welcome").results.count == 2)
            expectError(try await api.post("/1.1/functions/onVerified/fax", headers: hookHeaders, ["object": [:]]), code: 1, status: .notFound)
            let names = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            let list = names["result"]?.arrayValue ?? []
            #expect(list.contains("__on_verified_sms") && list.contains("__on_authdata__User"), "\(names)")
        }
    }
}
