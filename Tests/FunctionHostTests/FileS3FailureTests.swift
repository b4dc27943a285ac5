import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import NIOCore
import S3Storage
import TestSupport
import Testing

@testable import FunctionHost

/// A bucket that fails, as the host starts and while it runs (moto's server, its state reset
/// under the host): a host doesn't start on a bucket it can't use; a failing store is answered
/// 503/511 in words that tell an end user nothing of the store; a download of a stored file is
/// not answered as a missing one; and a delete still deletes (the bytes are left for a sweep).
@Suite struct FileS3FailureTests {
    static let unavailable = "The file store is unavailable; try again later."

    @Test(arguments: [("wrong-secret", "SignatureDoesNotMatch"), ("no-such-bucket", "NoSuchBucket")])
    func aHostDoesNotStartOnABucketItCantUse(setting: String, says: String) async throws {
        try await S3TestServer.run { server in
            let settings =
                setting == "wrong-secret" ? try server.settings(secret: "wrong-secret") : try server.settings(bucket: setting)
            let started = Recorded<Bool>()
            let failure = await #expect(throws: S3Error.self) {
                try await FileFixture.run(configure: { $0.s3Files = settings }) { _, _ in started.record(true) }
            }
            #expect(started.all.isEmpty)
            #expect(failure?.message.contains(says) == true, "\(String(describing: failure))")
        }
    }

    @Test func aHostStartsWhileItsStoreIsUnreachableAndAnswers511() async throws {
        // A port nothing listens on: the host logs it, starts, and answers uploads 503/511.
        let endpoint = "http://127.0.0.1:\(Ports.free())"
        let settings = try S3Settings(
            endpoint: endpoint, region: "us-east-1", bucket: "files", accessKey: "a", secretKey: "s", pathStyle: true)
        try await FileFixture.run(configure: { $0.s3Files = settings }) { api, _ in
            let reply = try await api.send(.post, "/1.1/files/a.txt", headers: FileFixture.typed("text/plain"), body: "nowhere")
            #expect(reply.status == .serviceUnavailable, "\(reply)")
            #expect(reply["code"] == 511, "\(reply)")
            #expect(reply["error"]?.stringValue == Self.unavailable, "\(reply)")
            #expect(try await FileFixture.fileCount(api) == 0)
        }
    }

    @Test func aStoreFailingWhileTheHostRunsIsAnsweredWithoutItsDetailsAndDeletesStillDelete() async throws {
        let deleted = Recorded<String>()
        var functions = FunctionRegistry()
        functions.hooks.afterDeleteFile { request in deleted.record(request.object["name"]?.stringValue ?? "-") }
        try await S3TestServer.run { server in
            try await FileFixture.run(functions: functions, configure: { $0.s3Files = try? server.settings(prefix: "app/") }) {
                api, _ in
                var files: [JSONValue] = []
                for name in ["one.txt", "two.txt", "three.txt"] { files.append(try await FileFixture.upload(api, name, name)) }
                #expect(files[0]["provider"] == "s3", "\(files[0])")
                #expect(files[0]["bucket"] == .string(server.bucket), "\(files[0])")
                try await server.reset()

                let upload = try await api.send(.post, "/1.1/files/a.txt", headers: FileFixture.typed("text/plain"), body: "lost")
                #expect(upload.status == .serviceUnavailable, "\(upload)")
                #expect(upload["error"]?.stringValue == Self.unavailable, "\(upload)")
                #expect(upload.text.contains("127.0.0.1") == false && upload.text.contains("Access") == false, "\(upload.text)")

                // A stored file whose store fails is not "not found".
                let download = try await FileFixture.exchange(api, .get, try FileFixture.path(files[0]["url"]))
                #expect(download.status == .serviceUnavailable, "\(download.status)")

                // The objects go, whatever the store says; each delete's afterDeleteFile runs.
                let ids = try files.map { try #require($0["objectId"]?.stringValue) }
                #expect(try await api.delete("/1.1/files/\(ids[0])", headers: Headers.master).status == .ok)
                let many = try await api.delete("/1.1/classes/_File/\(ids[1]),\(ids[2])", headers: Headers.master)
                #expect(many.status == .ok, "\(many)")
                #expect(try await FileFixture.fileCount(api) == 0)
                #expect(Set(deleted.all) == ["one.txt", "two.txt", "three.txt"], "\(deleted.all)")
            }
        }
    }

    /// A thumbnail URL of a file in a bucket reads its first bytes before its whole: a file too
    /// large, or no image, is refused as such without the original being fetched.
    @Test func aThumbnailOfABucketFileThatIsNoImageIsRefusedFromItsHead() async throws {
        try await S3TestServer.run { server in
            try await FileFixture.run(configure: { $0.s3Files = try? server.settings() }) { api, _ in
                let text = try await FileFixture.upload(api, "notes.txt", String(repeating: "not an image ", count: 100))
                let answer = try await FileFixture.exchange(api, .get, try FileFixture.path(text["url"]) + "?imageView2/2/w/10/h/10")
                #expect(answer.status == .badRequest, "\(answer.status)")
                // Refused from its first bytes, before the original was fetched: libvips, which
                // would have read the fetched copy, says "is not an image".
                #expect(
                    (try? JSONValue(parsing: answer.body))?["error"]?.stringValue?.hasPrefix("The file does not start as an image") == true,
                    "\(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }
}
