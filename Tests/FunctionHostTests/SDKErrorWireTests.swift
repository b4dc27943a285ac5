import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The codes and messages the PHP SDK's (0.14.2) and Python SDK's (3.0.2) own suites check, each
/// sent as the SDK sends it: signed with `X-LC-Sign`, `X-LC-Prod`, a charset in the content type.
@Suite struct SDKErrorWireTests {
    /// The headers of the PHP and Python SDKs' `Client`: a signature of the app key, not the key.
    static var signed: HTTPFields {
        let timestamp = String(Int64(Date().timeIntervalSince1970 * 1000))
        return Headers.make([
            ("X-LC-Id", "app"), ("X-LC-Sign", MD5.hex(timestamp + "key") + "," + timestamp), ("X-LC-Prod", "1"),
            ("Content-Type", "application/json;charset=utf-8"),
        ])
    }

    /// PHP `APITest::testIncrementOnStringField`: 111 and LeanCloud's "Invalid value type for field".
    @Test func anIncrementOnAStringFieldIsAnInvalidValueType() async throws {
        try await TestServer.run { api in
            let created = try await api.post("/1.1/classes/TestObject", headers: Self.signed, ["name": "alice"])
            let id = try #require(created.objectId, "\(created)")
            let refused = try await api.put(
                "/1.1/classes/TestObject/\(id)", headers: Self.signed, ["name": ["__op": "Increment", "amount": 1]])
            expectError(refused, code: 111, status: .badRequest)
            #expect(refused["error"]?.stringValue?.hasPrefix("Invalid value type for field") == true, "\(refused)")
            #expect(try await api.fetch("TestObject", id)["name"] == "alice")
        }
    }

    /// PHP `APITest::testSetHashValue`: a hash given where an operation takes a list is code 1.
    @Test func aHashWhereAListIsExpectedIsCodeOneAndChangesNothing() async throws {
        try await TestServer.run { api in
            let created = try await api.post(
                "/1.1/classes/TestObject", headers: Self.signed,
                ["name": "alice", "attr": ["age": 12, "gender": "female"]])
            let id = try #require(created.objectId, "\(created)")
            for op in ["add", "Add", "AddUnique", "Remove"] {
                let refused = try await api.put(
                    "/1.1/classes/TestObject/\(id)", headers: Self.signed,
                    ["attr": ["__op": .string(op), "objects": ["favColor": "Orange"]]])
                expectError(refused, code: 1, status: .badRequest)
            }
            #expect(try await api.fetch("TestObject", id)["attr"] == ["age": 12, "gender": "female"])
        }
    }

    /// PHP `FileTest::testSaveWithSpecifiedKeyWithoutMasterKey`: code 1, LeanCloud's message,
    /// and no file, token or upload left behind.
    @Test func attackAFileKeyWithoutTheMasterKeyIsRefusedAndNothingIsSaved() async throws {
        try await FileFixture.run { api, directory in
            let body: JSONValue = [
                "name": "test.txt", "ACL": .null, "mime_type": "text/plain", "metaData": ["size": 12, "owner": "unknown"],
                "key": "abc", "__type": "File",
            ]
            let refused = try await api.post("/1.1/fileTokens", headers: Self.signed, body)
            expectError(refused, code: 1, status: .badRequest)
            #expect(refused["error"] == "Unsupported file key. Please use masterKey to set file key.", "\(refused)")
            #expect(refused["token"] == nil && refused["upload_url"] == nil)
            #expect(try await api.find("_File", headers: Headers.master).results.isEmpty)
            #expect(try FileFixture.storedKeys(directory).isEmpty)
            // With the master key the same body is issued, under the key asked for.
            let issued = try await api.post("/1.1/fileTokens", headers: Headers.master, body)
            #expect(issued.status == .ok && issued["key"] == "abc", "\(issued)")
        }
    }

    /// Python `test_request_password_reset` / `test_request_email_verify`: mail after mail to one
    /// address is refused with LeanCloud's code 1 and its words, which apps show as they are.
    @Test func tooManyMailsToOneAddressAreCodeOneInLeanCloudsWords() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.publicURL = "https://api.example.com" }) { api in
            // Two addresses: each address's mails are counted together, whatever they are for.
            for (index, path) in ["/1.1/requestPasswordReset", "/1.1/requestEmailVerify"].enumerated() {
                let email = JSONValue.string("wow\(index)@leancloud.rocks")
                let signup = try await api.post(
                    "/1.1/users", headers: Self.signed, ["username": .string("wow\(index)"), "password": "secret1", "email": email])
                #expect(signup.status == .created, "\(signup)")
                #expect(try await api.post(path, headers: Self.signed, ["email": email]).status == .ok)
                let again = try await api.post(path, headers: Self.signed, ["email": email])
                expectError(again, code: 1, status: .badRequest)
                #expect(again["error"] == "请不要往同一个邮件地址发送太多邮件。", "\(again)")
            }
        }
    }
}
