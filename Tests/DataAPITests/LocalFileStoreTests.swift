import Foundation
import Testing

@testable import DataAPI

@Suite struct LocalFileStoreTests {
    /// A store over a fresh directory, removed afterwards.
    private func withStore(_ body: (LocalFileStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(try LocalFileStore(directory: directory), directory)
    }

    private func write(_ text: String, to writer: any FileContentWriter) throws {
        try Array(text.utf8).withUnsafeBytes { try writer.write($0) }
    }

    @Test func contentIsVisibleUnderItsKeyOnlyOnceFinished() throws {
        try withStore { store, directory in
            let writer = try store.beginWrite()
            try write("Hello, ", to: writer)
            try write("World!", to: writer)
            #expect(try store.content(forKey: "k1.txt") == nil)
            let stored = try writer.finish(key: "k1.txt")
            #expect(stored == StoredContent(size: 13, md5: "65a8e27d8879283831b664bd8b7f0ad4"))
            let content = try #require(try store.content(forKey: "k1.txt"))
            #expect(content.size == 13)
            #expect(try String(contentsOfFile: content.path, encoding: .utf8) == "Hello, World!")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(".incoming").path).isEmpty)
        }
    }

    @Test func anAbandonedWriteLeavesNothing() throws {
        try withStore { store, directory in
            let writer = try store.beginWrite()
            try write("partial", to: writer)
            writer.abandon()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(".incoming").path).isEmpty)
            #expect(throws: DataAPIError.self) { try writer.finish(key: "k2") }
        }
    }

    @Test func removingDeletesTheContentAndMissingContentIsNoError() throws {
        try withStore { store, _ in
            let writer = try store.beginWrite()
            try write("x", to: writer)
            _ = try writer.finish(key: "gone")
            try store.remove(key: "gone")
            #expect(try store.content(forKey: "gone") == nil)
            try store.remove(key: "gone")
        }
    }

    @Test func keysThatLeaveTheDirectoryAreRefused() throws {
        try withStore { store, _ in
            #expect(try store.content(forKey: "../functionhost.sqlite") == nil)
            #expect(try store.content(forKey: ".incoming") == nil)
            let writer = try store.beginWrite()
            #expect(throws: DataAPIError.self) { try writer.finish(key: "../escape") }
        }
    }

    @Test func partialFilesFromACrashAreClearedAtStart() throws {
        try withStore { store, directory in
            let writer = try store.beginWrite()
            try write("half", to: writer)
            // A crash: the writer is never finished. A new store over the same directory starts clean.
            _ = try LocalFileStore(directory: directory)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(".incoming").path).isEmpty)
            _ = store
        }
    }

    @Test func mimeTypesComeFromTheExtension() {
        #expect(MIMEType.forName("photo.JPG") == "image/jpeg")
        #expect(MIMEType.forName("notes.txt") == "text/plain")
        #expect(MIMEType.forName("archive.unknownext") == "application/octet-stream")
        #expect(MIMEType.forName("README") == "application/octet-stream")
        #expect(MIMEType.forName(".hidden") == "application/octet-stream")
    }

    @Test func newKeysKeepASafeExtension() {
        let key = FileService.newKey(for: "avatar.PNG")
        #expect(key.hasSuffix(".png"))
        #expect(key.count == 36)
        #expect(!FileService.newKey(for: "x.tar/../../etc").contains("/"))
        #expect(LocalFileStore.isValidKey(FileService.newKey(for: "weird.na me")))
    }
}
