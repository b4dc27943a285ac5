import DataAPI
import Foundation
import HTTPTypes
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, item 1: links and URLs the server hands out never take their host from the
/// request. An attacker who sends `Host: attacker.example` must not get a reset link pointing at
/// their own server into the victim's mailbox.
@Suite struct EdgeLinkAttackTests {
    static let attacker = "attacker.example"

    /// The links emailed to an address, newest first.
    static func links(_ api: API, to email: String) async throws -> [String] {
        try await Outbox.messages(api, to: email).compactMap { $0["link"]?.stringValue }
    }

    @Test func aResetRequestWithTheAttackersHostSendsNoLinkWithoutAPublicURL() async throws {
        try await EdgeFixture.run(transport: .socket) { api, _ in
            _ = try await api.post("/1.1/users", ["username": "victim", "password": "pw", "email": "victim@example.com"])
            for endpoint in ["requestPasswordReset", "requestEmailVerify"] {
                let reply = try await EdgeFixture.send(
                    port: api.port, .POST, "/1.1/\(endpoint)", host: Self.attacker, body: #"{"email":"victim@example.com"}"#)
                expectError(reply, code: 1, status: .badRequest)
                #expect(reply["error"]?.stringValue?.contains("--public-url") == true, "\(reply)")
            }
            // Nothing went out, so no token reached anybody.
            #expect(try await Self.links(api, to: "victim@example.com").isEmpty)
        }
    }

    @Test func linksStartWithThePublicURLWhateverTheHost() async throws {
        try await EdgeFixture.run(transport: .socket, configure: { $0.publicURL = "https://api.example.com" }) { api, _ in
            let forwarded = EdgeFixture.client + [("X-Forwarded-Host", Self.attacker), ("X-Forwarded-Proto", "http")]
            var links: [String] = []
            // One address each: an address gets one message a minute.
            for endpoint in ["requestPasswordReset", "requestEmailVerify"] {
                let email = "\(endpoint)@example.com"
                _ = try await api.post("/1.1/users", ["username": .string(endpoint), "password": "pw", "email": .string(email)])
                let reply = try await EdgeFixture.send(
                    port: api.port, .POST, "/1.1/\(endpoint)", host: Self.attacker, headers: forwarded,
                    body: #"{"email":"\#(email)"}"#)
                #expect(reply.status == .ok, "\(reply)")
                links += try await Self.links(api, to: email)
            }
            #expect(links.count == 2, "\(links)")
            #expect(links.allSatisfy { $0.hasPrefix("https://api.example.com/1.1/") }, "\(links)")
            #expect(!links.contains { $0.contains(Self.attacker) }, "\(links)")
        }
    }

    @Test func aSignupSendsNoVerificationLinkBuiltFromTheHost() async throws {
        try await EdgeFixture.run(transport: .socket, configure: { $0.verification.verifyEmailOnSignup = true }) { api, _ in
            let signup = try await EdgeFixture.send(
                port: api.port, .POST, "/1.1/users", host: Self.attacker,
                body: #"{"username":"new","password":"pw","email":"new@example.com"}"#)
            #expect(signup.status == .created, "the signup itself succeeds: \(signup)")
            #expect(try await Self.links(api, to: "new@example.com").isEmpty)
        }
    }

    @Test func fileURLsComeFromTheListeningAddressNotTheHost() async throws {
        try await EdgeFixture.run(transport: .socket) { api, _ in
            let own = "http://127.0.0.1:\(api.port)"
            let headers = EdgeFixture.client + [("X-Forwarded-Proto", "https")]
            let uploaded = try await EdgeFixture.send(
                port: api.port, .POST, "/1.1/files/a.txt", host: Self.attacker, headers: headers, body: "a",
                contentType: "text/plain")
            #expect(uploaded.status == .created, "\(uploaded)")
            #expect(uploaded["url"]?.stringValue?.hasPrefix("\(own)/files/") == true, "\(uploaded)")
            #expect(uploaded.header("Location")?.hasPrefix("\(own)/files/") == true, "\(uploaded.headers)")
            let issued = try await EdgeFixture.send(
                port: api.port, .POST, "/1.1/fileTokens", host: Self.attacker, headers: headers, body: #"{"name":"b.txt"}"#)
            #expect(issued["url"]?.stringValue?.hasPrefix("\(own)/files/") == true, "\(issued)")
            #expect(issued["upload_url"]?.stringValue?.hasPrefix("\(own)/1.1/fileUploads/") == true, "\(issued)")
            // The URL handed out is one this server answers.
            let path = try FileFixture.path(uploaded["url"])
            #expect(try await api.get(path, headers: Headers.none).text == "a")
        }
    }

    @Test func fileURLsComeFromThePublicURLWhenThereIsOne() async throws {
        try await EdgeFixture.run(transport: .socket, configure: { $0.publicURL = "https://files.example.com" }) { api, _ in
            let uploaded = try await EdgeFixture.send(
                port: api.port, .POST, "/1.1/files/a.txt", host: Self.attacker, body: "a", contentType: "text/plain")
            #expect(uploaded["url"]?.stringValue?.hasPrefix("https://files.example.com/files/") == true, "\(uploaded)")
        }
    }
}
