import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, item 13: a `fileCallback` settles its upload once, while its token lives. Before,
/// `result: false` deleted a confirmed file at any later time, by anyone holding the token.
@Suite struct FileCallbackAttackTests {
    /// Issues a token and uploads `body` with it: the file's id, token and URL path.
    static func uploaded(_ api: API, _ body: String) async throws -> (id: String, token: String, path: String) {
        let issued = try await api.post("/1.1/fileTokens", ["name": "kept.txt"])
        let id = try #require(issued["objectId"]?.stringValue, "\(issued)")
        let token = try #require(issued["token"]?.stringValue, "\(issued)")
        let put = try await api.send(
            .put, try FileFixture.path(issued["upload_url"]), headers: FileFixture.typed("text/plain", Headers.none), body: body)
        #expect(put.status == .ok, "\(put)")
        return (id, token, try FileFixture.path(issued["url"]))
    }

    static func callback(_ api: API, _ token: String, _ result: Bool) async throws -> Reply {
        try await api.post("/1.1/fileCallback", ["token": .string(token), "result": .bool(result)])
    }

    @Test func aConfirmedUploadCantBeDeletedByALaterCallback() async throws {
        try await FileFixture.run { api, _ in
            let file = try await Self.uploaded(api, "kept")
            #expect(try await Self.callback(api, file.token, true).status == .ok)
            expectError(try await Self.callback(api, file.token, false), code: 603, status: .badRequest)
            expectError(try await Self.callback(api, file.token, true), code: 603, status: .badRequest)
            #expect(try await api.get("/1.1/files/\(file.id)").status == .ok)
            #expect(try await api.get(file.path, headers: Headers.none).text == "kept")
        }
    }

    @Test func anExpiredTokenSettlesNothing() async throws {
        let clock = TestClock()
        try await FileFixture.run(configure: { $0.clock = { clock.now } }) { api, _ in
            let file = try await Self.uploaded(api, "kept")
            clock.advance(minutes: 61)
            expectError(try await Self.callback(api, file.token, false), code: 603, status: .badRequest)
            expectError(try await Self.callback(api, file.token, true), code: 603, status: .badRequest)
            #expect(try await api.get(file.path, headers: Headers.none).text == "kept")
        }
    }

    @Test func racingCallbacksSettleAnUploadOnce() async throws {
        try await FileFixture.run { api, _ in
            for round in 1...5 {
                let file = try await Self.uploaded(api, "round \(round)")
                let codes = try await ConcurrentRequests.codes(
                    [true, false].map { result in
                        ConcurrentRequests.Request(
                            api: api, path: "/1.1/fileCallback", body: ["token": .string(file.token), "result": .bool(result)])
                    })
                #expect(codes.sorted() == [0, 603], "round \(round): \(codes)")
                // Whichever came first decided: a confirmed file stays, a given-up one is gone,
                // and a second callback changes neither.
                let kept = try await api.get(file.path, headers: Headers.none).status == .ok
                #expect(try await api.get("/1.1/files/\(file.id)").status == (kept ? .ok : .notFound), "round \(round)")
                expectError(try await Self.callback(api, file.token, false), code: 603)
                #expect(try await api.get(file.path, headers: Headers.none).status == (kept ? .ok : .notFound))
            }
        }
    }
}
