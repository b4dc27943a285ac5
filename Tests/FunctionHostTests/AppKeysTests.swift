import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// `AppKeys.resolve`: keys generated once into `keys.json`, given values winning.
@Suite struct AppKeysTests {
    static func isHex(_ text: String, length: Int) -> Bool {
        text.count == length && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test func keysAreGeneratedOnceAndThenRead() throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let first = try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        #expect(first.generated)
        #expect(Self.isHex(first.keys.appId, length: 24))
        #expect(Self.isHex(first.keys.appKey, length: 24))
        #expect(Self.isHex(first.keys.masterKey, length: 32))
        #expect(Self.isHex(first.keys.hookKey, length: 32))
        #expect(Set([first.keys.appId, first.keys.appKey, first.keys.masterKey, first.keys.hookKey]).count == 4)

        let file = URL(fileURLWithPath: directory).appendingPathComponent("keys.json")
        let stored = try JSONDecoder().decode(AppKeys.self, from: Data(contentsOf: file))
        #expect(stored == first.keys)

        let second = try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        #expect(!second.generated)
        #expect(second.keys == first.keys)
    }

    @Test func givenKeysOverrideStoredOnes() throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stored = try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil).keys

        let overridden = try AppKeys.resolve(
            dataDirectory: directory, appId: "custom-id", appKey: nil, masterKey: "custom-master", hookKey: nil)
        #expect(!overridden.generated)
        #expect(
            overridden.keys
                == AppKeys(appId: "custom-id", appKey: stored.appKey, masterKey: "custom-master", hookKey: stored.hookKey))

        // Overrides are not written back: without them, the stored keys come back.
        let again = try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        #expect(again.keys == stored)
    }

    @Test func givenKeysOnAFreshDirectoryWin() throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolved = try AppKeys.resolve(
            dataDirectory: directory, appId: "a", appKey: "b", masterKey: "c", hookKey: "d")
        #expect(resolved.keys == AppKeys(appId: "a", appKey: "b", masterKey: "c", hookKey: "d"))
        // The file now exists, so the next resolution reads instead of generating.
        #expect(FileManager.default.fileExists(atPath: directory + "/keys.json"))
        let next = try AppKeys.resolve(dataDirectory: directory, appId: "a", appKey: "b", masterKey: "c", hookKey: "d")
        #expect(!next.generated)
        #expect(next.keys == resolved.keys)
    }

    @Test func aCorruptKeysFileIsAnErrorNotNewKeys() throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = URL(fileURLWithPath: directory).appendingPathComponent("keys.json")
        try Data("{not json".utf8).write(to: file)
        #expect(throws: (any Error).self) {
            try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil)
        }
        // The file is left for the operator to repair.
        #expect(try String(contentsOf: file, encoding: .utf8) == "{not json")
    }

    @Test func aServerAcceptsTheResolvedKeys() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try AppKeys.resolve(dataDirectory: directory, appId: nil, appKey: nil, masterKey: nil, hookKey: nil).keys

        try await TestServer.run(dataDirectory: directory, keys: keys) { api in
            let client = Headers.make([("X-LC-Id", keys.appId), ("X-LC-Key", keys.appKey)])
            let created = try await api.post("/1.1/classes/Todo", headers: client, ["title": "x"])
            #expect(created.status == .created, "\(created)")
            let master = Headers.make([("X-LC-Id", keys.appId), ("X-LC-Key", keys.masterKey + ",master")])
            #expect(try await api.post("/1.1/classes/_User", headers: master, ["username": "root"]).status == .created)
            let timestamp = String(ObjectID.currentMilliseconds())
            let signed = Headers.make([("X-LC-Id", keys.appId), ("X-LC-Sign", MD5.hex(timestamp + keys.appKey) + "," + timestamp)])
            #expect(try await api.get("/1.1/classes/Todo", headers: signed).status == .ok)
            // The test keys of other servers are not these.
            #expect(try await api.get("/1.1/classes/Todo", headers: Headers.client).status == .unauthorized)
        }
    }
}
