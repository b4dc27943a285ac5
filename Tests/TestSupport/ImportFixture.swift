package import DataAPI
import Foundation
import FunctionHost
import Testing

/// A LeanCloud console export, written as the console writes one: a `.tar.gz` of
/// `<Class>.0.jsonl` files with the `#filetype:JSON-streaming` header, `_Join:` files of relation
/// members, a schema file, and a folder of file bytes named by key. It exercises every type, the
/// published password vector (and hashes made with 511 and 513 re-hashes), relations, files and
/// lines that can't be imported.
package struct ImportFixture {
    /// Where the export and the bytes folder are.
    package let root: String

    /// The fixture whose files are under `root`.
    package init(root: String) { self.root = root }

    package var archive: String { root + "/export.tar.gz" }
    package var folder: String { root + "/export" }
    package var bytes: String { root + "/bytes" }

    package static let tom = "5f3de9c27a53400006b1385e"
    package static let jerry = "5f3de9c27a53400006b13999"
    package static let post = "5f3dea7b7a53400006b13886"
    package static let file = "5f3dea0a7a53400006b13870"
    package static let role = "55a48351e4b05001a774a89f"
    package static let childRole = "55a48351e4b05001a774a8a0"
    package static let fileKey = "dPe0f4WpX5Hp9kS6ydiwtgOPFbMB1qJUmfNH8lq3.jpg"
    package static let fileBytes = "not really a jpeg, but these are its bytes"
    package static let sessionToken = "qmdj8pdidnmyzp0c7yqil91oc"
    package static let salt = "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2"
    /// SHA-512(salt + "password"), re-hashed 512 times: LeanCloud's published vector.
    package static let hash512 = "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug=="
    /// The same with 511 and 513 re-hashes (computed apart, with Python's hashlib).
    package static let hash511 = "wH0415cVcY/itXHy7CrPqNVRbaKFgYktdqbqDKgeuU6wQH1l4603FRUAAWV8BIHsrYzjdcDYz/0zJ+C/a57KIQ=="
    package static let hash513 = "XQD8WcI7jlepfMdjLMpDtM41zuU8x++Xl08aj3WwO1wOWg2wwxhqe3ZXELBZx4Pm2uBxrVlf3xC4WHwn+l8ksw=="

    /// The Post line, every type in it.
    package static let postLine = #"""
        {"objectId":"5f3dea7b7a53400006b13886","createdAt":"2020-08-20T03:10:19.512Z","updatedAt":"2021-01-04T09:00:00.000Z","ACL":{"*":{"read":true},"5f3de9c27a53400006b1385e":{"write":true}},"title":"hello","likes":3,"ratio":0.25,"draft":false,"tags":["a","b"],"meta":{"depth":{"n":1},"list":[1,"two",null]},"publishedAt":{"__type":"Date","iso":"2020-08-21T00:00:00.000Z"},"raw":{"__type":"Bytes","base64":"aGVsbG8="},"author":{"__type":"Pointer","className":"_User","objectId":"5f3de9c27a53400006b1385e"},"cover":{"__type":"File","id":"5f3dea0a7a53400006b13870"},"thumb":{"__type":"File","objectId":"5f3dea0a7a53400006b13870","name":"cover.jpg","url":"https://lc-abcdefgh.cn-n1.lcfile.com/dPe0f4WpX5Hp9kS6ydiwtgOPFbMB1qJUmfNH8lq3.jpg"},"location":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4},"fans":{"__type":"Relation","className":"_User"}}
        """#

    /// Writes the export into a new temporary folder.
    package static func make() throws -> ImportFixture {
        let fixture = ImportFixture(root: try TestServer.makeDataDirectory() + "-export")
        func user(_ id: String, _ name: String, hash: String?, extra: String = "") -> String {
            let secret = hash.map { #","salt":"\#(salt)","password":"\#($0)""# } ?? ""
            return #"{"objectId":"\#(id)","createdAt":"2020-08-20T03:07:14.000Z","updatedAt":"2020-08-20T03:07:14.000Z","username":"\#(name)","email":"\#(name)@example.com","emailVerified":false\#(secret)\#(extra),"ACL":{"*":{"read":true},"\#(id)":{"write":true}}}"#
        }
        let header = { (name: String) in #"#filetype:JSON-streaming {"type":"Class","class":"\#(name)"}"# }
        let files: [String: [String]] = [
            "_User.0.jsonl": [
                header("_User"),
                user(
                    tom, "tom", hash: hash512,
                    extra: #","mobilePhoneNumber":"+8618600000000","mobilePhoneVerified":true,"sessionToken":"\#(sessionToken)","authData":{"weixin":{"openid":"o1","access_token":"t","expires_in":7200}}"#
                ),
                user(jerry, "jerry", hash: nil),
                user("5f3de9c27a53400006b13511", "r511", hash: hash511),
                user("5f3de9c27a53400006b13513", "r513", hash: hash513),
                // Takes tom's username: LeanCloud keeps usernames unique, so this one is skipped.
                user("5f3de9c27a53400006b13777", "tom", hash: hash512),
            ],
            "Post.0.jsonl": [
                header("Post"),
                postLine,
                #"{"objectId":"p2","createdAt":"2020-08-20T03:10:20.000Z","updatedAt":"2020-08-20T03:10:20.000Z","title":"second","likes":4}"#,
                "",
                #"{"objectId":"p3","title": "broken"#,
                #"{"objectId":"p4","title":"wrong type","likes":"three"}"#,
                #"{"title":"no id, no dates"}"#,
            ],
            "_File.0.jsonl": [
                header("_File"),
                #"{"objectId":"\#(file)","createdAt":"2020-08-20T03:08:26.000Z","updatedAt":"2020-08-20T03:08:26.000Z","__type":"File","name":"cover.jpg","key":"\#(fileKey)","url":"https://lc-abcdefgh.cn-n1.lcfile.com/\#(fileKey)","mime_type":"image/jpeg","provider":"qiniu","bucket":"abcdefgh","metaData":{"size":42,"owner":"\#(tom)"},"ACL":{"*":{"read":true}}}"#,
            ],
            "_Role.0.jsonl": [
                header("_Role"),
                #"{"objectId":"\#(role)","createdAt":"2015-07-14T03:34:41.074Z","updatedAt":"2015-07-14T03:37:20.994Z","name":"Manager","ACL":{"*":{"read":true}},"users":{"__type":"Relation","className":"_User"},"roles":{"__type":"Relation","className":"_Role"}}"#,
                #"{"objectId":"\#(childRole)","createdAt":"2015-07-14T03:34:41.074Z","updatedAt":"2015-07-14T03:37:20.994Z","name":"Staff","ACL":{"*":{"read":true}}}"#,
            ],
            "_Join:users:_Role.0.jsonl": [#"{"owningId":"\#(role)","relatedId":"\#(tom)"}"#],
            // LeanCloud's console form of relation members: CSV pairs.
            "_Join:roles:_Role.csv": ["owningId,relatedId", "\(role),\(childRole)"],
            "_Join:fans:Post.0.jsonl": [
                #"{"owningId":"\#(post)","relatedId":"\#(tom)"}"#, #"{"owningId":"\#(post)","relatedId":"\#(jerry)"}"#,
                #"{"owningId":"\#(post)"}"#,
            ],
        ]
        for (name, lines) in files {
            try write(lines.joined(separator: "\n") + "\n", to: fixture.folder + "/" + name)
        }
        try write(
            #"{"schema":{"objectId":{"type":"String"},"subtitle":{"type":"String"},"likes":{"type":"Number","default":0}},"permissions":{"create":{"onlySignInUsers":true}},"indexes":[]}"#,
            to: fixture.folder + "/Post_schema.json")
        try write(fileBytes, to: fixture.bytes + "/" + fileKey)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "czf", fixture.archive, "-C", fixture.root, "export"]
        try tar.run()
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0)
        return fixture
    }

    package static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    package func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Imports `path` into the database of `dataDirectory` (SQLite, or the test's PostgreSQL
    /// schema), copying file bytes from the fixture's folder.
    package func importInto(_ dataDirectory: String, path: String? = nil) async throws -> ImportSummary {
        try await FunctionHostServer.withStorage(
            dataDirectory: dataDirectory, database: TestDatabase.location(for: dataDirectory),
            logger: .init(label: "import")
        ) { storage in
            var importer = ExportImporter(storage: storage)
            importer.fileBytes = ExportFileBytes(
                sourceDirectory: bytes,
                store: try LocalFileStore(directory: URL(fileURLWithPath: dataDirectory).appendingPathComponent("files")),
                urls: .served(at: "http://files.test"))
            try await importer.importPath(path ?? archive)
            return importer.summary
        }
    }

    /// Every stored object of the fixture's classes, in id order: what "the same database" means.
    package static func snapshot(_ dataDirectory: String) async throws -> [String: [StoredObject]] {
        try await FunctionHostServer.withStorage(
            dataDirectory: dataDirectory, database: TestDatabase.location(for: dataDirectory),
            logger: .init(label: "import")
        ) { storage in
            var classes: [String: [StoredObject]] = [:]
            for name in try await storage.classNames() {
                classes[name] = try await storage.scan(name, predicate: nil, after: nil, limit: 1000)
            }
            return classes
        }
    }
}
