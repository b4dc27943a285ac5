import Foundation
import JSON
package import Logging

/// Files: their bytes in a content store, their description in `_File` objects, and the file
/// hooks around both. The bytes are safe on disk before the `_File` object is written; an
/// upload that fails or is refused leaves neither behind.
public struct FileService: Sendable {
    /// The data service (with its hooks) the `_File` objects go through.
    public let data: DataService
    /// Where the bytes go.
    package let content: any FileContentStore
    /// The largest file accepted, in bytes.
    public let maxSize: Int
    /// Where a store's failure that no caller is told of goes (bytes a delete left behind).
    package var logger = Logger(label: "functionhost.files")

    /// Creates the service.
    package init(data: DataService, content: any FileContentStore, maxSize: Int) {
        self.data = data
        self.content = content
        self.maxSize = maxSize
    }

    /// Checks a draft and runs `beforeSaveFile`: the draft to store, or a throw that refuses it
    /// (before a single byte is written).
    public func prepare(_ draft: Draft, caller: Caller) async throws -> Prepared {
        try Self.checkName(draft.name)
        if let size = draft.declaredSize { try checkSize(size) }
        guard
            let event = try await data.runBefore(
                .beforeSaveFile, ObjectEvent(className: "_File", object: draft.hookObject, caller: caller))
        else { return Prepared(draft: draft, context: [:]) }
        let prepared = try draft.applying(event.object)
        try Self.checkName(prepared.name)
        return Prepared(draft: prepared, context: event.context)
    }

    /// Stores a prepared file: `fill` writes its bytes (never more than `maxSize`), then the
    /// `_File` object is written and `afterSaveFile` runs.
    ///
    /// - Parameters:
    ///   - objectId: the id promised with an upload token; nil for a new one.
    ///   - key: the key promised with an upload token; nil for a new one.
    ///   - urls: where this host serves files.
    package func store(
        _ prepared: Prepared, objectId: String? = nil, key: String? = nil, urls: FileURLs, caller: Caller,
        fill: (FileBytesWriter) async throws -> Void
    ) async throws -> StoredObject {
        let key = key ?? Self.newKey(for: prepared.draft.name)
        let writer = FileBytesWriter(inner: try await content.beginUpload(key: key), limit: maxSize)
        let stored: StoredContent
        do {
            try await fill(writer)
            stored = try await writer.finish()
        } catch {
            await writer.abandon()
            throw error
        }
        var metaData = prepared.draft.metaData
        metaData["size"] = .int(Int64(stored.size))
        metaData["_checksum"] = .string(stored.md5)
        let fields: [String: JSONValue] = [
            "key": .string(key), "url": .string(urls.url(of: key, name: prepared.draft.keepFileName ? prepared.draft.name : nil)),
            "provider": .string(content.provider.name),
            "bucket": .string(content.provider.bucket),
        ]
        do {
            return try await record(prepared, metaData: metaData, fields: fields, objectId: objectId, caller: caller)
        } catch {
            try? await content.delete(key: key)
            throw error
        }
    }

    /// Records a file that lives elsewhere (`POST /files` with a `url`): nothing is uploaded. The
    /// url is checked before `beforeSaveFile` runs.
    public func storeExternal(url: String?, _ draft: Draft, caller: Caller) async throws -> StoredObject {
        guard let url, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else {
            throw DataAPIError(.badParameters, "An external file needs an http or https url.")
        }
        let prepared = try await prepare(draft, caller: caller)
        var metaData = prepared.draft.metaData
        // The JS SDK's mark of an external file; `provider` says it, and `__` keys can't be stored.
        metaData["__source"] = nil
        return try await record(
            prepared, metaData: metaData, fields: ["url": .string(url), "provider": "external"], caller: caller)
    }

    /// Writes the `_File` object of a prepared file (its owner is the caller), then runs
    /// `afterSaveFile`.
    private func record(
        _ prepared: Prepared, metaData: [String: JSONValue], fields: [String: JSONValue], objectId: String? = nil,
        caller: Caller
    ) async throws -> StoredObject {
        var metaData = metaData
        metaData["owner"] = caller.userId.map(JSONValue.string) ?? "unknown"
        var body = fields
        body["name"] = .string(prepared.draft.name)
        body["mime_type"] = .string(prepared.draft.mimeType)
        body["metaData"] = .object(metaData)
        body["ACL"] = prepared.draft.acl
        let object = try await data.create("_File", body: body, objectId: objectId, caller: Self.writer(for: caller))
        await data.runAfter(
            .afterSaveFile, ObjectEvent(className: "_File", object: object.restJSON(), context: prepared.context, caller: caller))
        return object
    }

    /// The `_File` object with this id, as the caller may see it; nil when there is none.
    public func file(id: String, caller: Caller) async throws -> StoredObject? {
        guard try await data.storage(for: caller).classExists("_File") else { return nil }
        return try await data.fetch("_File", id: id, caller: caller)
    }

    /// The `_File` object of stored content in an environment's data, for serving it (its URL
    /// is the credential).
    public func file(key: String, in environment: EnvironmentName) async throws -> StoredObject? {
        let storage = data.engines.engine(for: environment)
        guard try await storage.classExists("_File") else { return nil }
        var query = ObjectQuery(className: "_File", limit: 1)
        query.predicate = try QueryPredicate(where: ["key": .string(key)])
        return try await storage.find(query).first
    }

    /// Deletes a file: its `_File` object, then its bytes, with `beforeDeleteFile` and
    /// `afterDeleteFile` around. The master key may; so may the owner when `ownersMayDelete`, and
    /// callers `_File`'s delete permission gives it to, where the file's ACL lets them write.
    public func delete(id: String, caller: Caller, ownersMayDelete: Bool) async throws {
        let file = try await checkDelete(id: id, caller: caller, ownersMayDelete: ownersMayDelete)
        let event = ObjectEvent(className: "_File", object: file.restJSON(), original: file, caller: caller)
        try await remove(file, after: try await data.runBefore(.beforeDeleteFile, event) ?? event, caller: caller)
    }

    /// Deletes several files as one request (`DELETE /classes/_File/a,b`): every file is checked
    /// and every `beforeDeleteFile` runs before anything is deleted, so one refused deletes
    /// none; the `_File` objects are then deleted in one transaction, and only once it
    /// committed are the bytes of each file it deleted removed and its `afterDeleteFile` run
    /// (a file deleted meanwhile by another request is that request's to finish). Ids with no
    /// file are skipped. Answers the ids deleted.
    ///
    /// - Throws: 107 for more than `DataService.maxDeleteIds` ids, before any hook runs.
    public func deleteAll(ids: [String], caller: Caller, ownersMayDelete: Bool) async throws -> [String] {
        try DataService.checkDeleteCount(ids)
        var planned: [(file: StoredObject, event: ObjectEvent)] = []
        var named = Set<String>()
        for id in ids where named.insert(id).inserted {
            do {
                let file = try await checkDelete(id: id, caller: caller, ownersMayDelete: ownersMayDelete)
                planned.append((file, ObjectEvent(className: "_File", object: file.restJSON(), original: file, caller: caller)))
            } catch let error as DataAPIError where error.code == .objectNotFound {
                continue
            }
        }
        for index in planned.indices {
            planned[index].event = try await data.runBefore(.beforeDeleteFile, planned[index].event) ?? planned[index].event
        }
        let deleted = Set(
            try await data.deleteAll("_File", ids: planned.map(\.file.objectId), caller: Self.writer(for: caller)))
        for item in planned where deleted.contains(item.file.objectId) { try await finishRemoving(item.file, after: item.event) }
        return planned.map(\.file.objectId).filter(deleted.contains)
    }

    /// Deletes a checked file whose `beforeDeleteFile` ran: its object, then its bytes, then
    /// `afterDeleteFile`.
    private func remove(_ file: StoredObject, after event: ObjectEvent, caller: Caller) async throws {
        try await data.delete("_File", id: file.objectId, caller: Self.writer(for: caller))
        try await finishRemoving(file, after: event)
    }

    /// What follows a file's deleted `_File` object: its bytes are removed, then
    /// `afterDeleteFile` runs.
    private func finishRemoving(_ file: StoredObject, after event: ObjectEvent) async throws {
        // The object is gone first: a crash here leaves unreferenced bytes, never a dangling
        // object. The delete is done once the object is: a store that fails now leaves the
        // bytes for `functionhost files sweep`, and the delete still answers success and runs
        // `afterDeleteFile` (a multi-delete goes on with the next file).
        if let key = file.fields["key"]?.stringValue {
            do {
                try await content.delete(key: key)
            } catch {
                logger.warning(
                    "A deleted file's bytes could not be removed; they stay until a sweep removes them",
                    metadata: ["key": .string(key), "error": .string("\(error)")])
            }
        }
        var event = event
        event.object = file.restJSON()
        await data.runAfter(.afterDeleteFile, event)
    }

    /// The file `delete` would delete, checked as it checks it, without deleting anything (a
    /// multi-file delete checks every file first).
    public func checkDelete(id: String, caller: Caller, ownersMayDelete: Bool) async throws -> StoredObject {
        guard let file = try await file(id: id, caller: caller) else {
            throw DataAPIError(.objectNotFound, "Could not find file.")
        }
        let owner = file.fields["metaData"]?["owner"]?.stringValue
        if !caller.isMaster, !(ownersMayDelete && owner != nil && owner == caller.userId) {
            // `_File`'s delete is closed by default, as on LeanCloud; opened for some callers,
            // the file's ACL still decides for each file.
            let access = try await data.access(for: caller)
            try await access.check(.delete, on: "_File")
            guard ACLCheck.allows(file, .write, to: access.identities ?? []) else { throw ACLCheck.writeRefused }
        }
        return file
    }

    /// Only the host writes `_File` objects, in the caller's environment; the file hooks are
    /// the hooks of a file, so the object hooks of `_File` don't run as well.
    private static func writer(for caller: Caller) -> Caller {
        var writer = Caller.master.withoutHooks
        writer.environment = caller.environment
        return writer
    }

    private func checkSize(_ size: Int) throws(DataAPIError) {
        guard size <= maxSize else {
            throw DataAPIError(.fileTooLarge, "The file is larger than the limit of \(maxSize) bytes.")
        }
    }

    private static func checkName(_ name: String) throws(DataAPIError) {
        guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), !name.contains("\0") else {
            throw DataAPIError(.invalidFileName, "Invalid file name '\(name)'.")
        }
    }

    /// Whether `key` may name new content: a valid key that no file, no content and no live
    /// upload token has yet. A key chosen by a client must never replace another file's bytes.
    func isFreeKey(_ key: String) async throws -> Bool {
        guard LocalFileStore.isValidKey(key), try await content.size(ofKey: key) == nil else { return false }
        for environment in EnvironmentName.allCases {
            if try await file(key: key, in: environment) != nil { return false }
        }
        return true
    }

    /// A new key: 32 random hex digits, and the name's extension so that the URL shows the type.
    static func newKey(for name: String) -> String {
        let random = ObjectID.randomHex(byteCount: 16)
        let ext = MIMEType.fileExtension(of: name)
        let safe = ext.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) } && ext.count <= 10
        return ext.isEmpty || !safe ? random : "\(random).\(ext)"
    }
}
