import Foundation
import Synchronization

/// Files: their bytes in a content store, their description in `_File` objects, and the file
/// hooks around both. The bytes are safe on disk before the `_File` object is written; an
/// upload that fails or is refused leaves neither behind.
public struct FileService: Sendable {
    /// The data service (with its hooks) the `_File` objects go through.
    public let data: DataService
    /// Where the bytes go.
    public let content: any FileContentStore
    /// The largest file accepted, in bytes.
    public let maxSize: Int

    /// Creates the service.
    public init(data: DataService, content: any FileContentStore, maxSize: Int) {
        self.data = data
        self.content = content
        self.maxSize = maxSize
    }

    /// A file about to be stored, as the client described it and the before-hook left it.
    public struct Draft: Sendable {
        /// The file's name (`avatar.png`).
        public var name: String
        /// Its MIME type; derived from the name when the client gave none.
        public var mimeType: String
        /// The client's metadata (`width`, `author`, ...); the host adds `size`, `owner`, `_checksum`.
        public var metaData: [String: JSONValue]
        /// The `_File` object's ACL, when the client gave one.
        public var acl: JSONValue?
        /// The size the client announced (`Content-Length`), before any byte arrived.
        public var declaredSize: Int?

        /// Creates a draft; the MIME type defaults to the one of the name's extension.
        public init(
            name: String, mimeType: String? = nil, metaData: [String: JSONValue] = [:], acl: JSONValue? = nil,
            declaredSize: Int? = nil
        ) {
            self.name = name
            self.mimeType = mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? MIMEType.forName(name)
            self.metaData = metaData
            self.acl = acl
            self.declaredSize = declaredSize
        }

        /// How hooks see it: LeanCloud's field names.
        var hookObject: [String: JSONValue] {
            var object: [String: JSONValue] = [
                "name": .string(name), "mime_type": .string(mimeType), "metaData": .object(metaData),
            ]
            if let declaredSize { object["size"] = .int(Int64(declaredSize)) }
            return object
        }

        /// The draft as a before-hook left it: it may rename the file and change its type and metadata.
        func applying(_ object: [String: JSONValue]) throws(DataAPIError) -> Draft {
            var draft = self
            if let name = object["name"] {
                guard case .string(let renamed) = name else {
                    throw DataAPIError(.invalidFileName, "A file hook must leave a string name.")
                }
                draft.name = renamed
            }
            if case .string(let type)? = object["mime_type"], !type.isEmpty { draft.mimeType = type }
            if case .object(let metaData)? = object["metaData"] { draft.metaData = metaData }
            return draft
        }
    }

    /// Checks a draft and runs `beforeSaveFile`: the draft to store, or a throw that refuses it
    /// (before a single byte is written).
    public func prepare(_ draft: Draft, caller: Caller) async throws -> (draft: Draft, context: [String: JSONValue]) {
        try Self.checkName(draft.name)
        if let size = draft.declaredSize { try checkSize(size) }
        guard let hooks = hooks(.beforeSaveFile, caller) else { return (draft, [:]) }
        let event = try await hooks.runBefore(
            .beforeSaveFile, HookEvent(className: "_File", object: draft.hookObject, caller: caller))
        let prepared = try draft.applying(event.object)
        try Self.checkName(prepared.name)
        return (prepared, event.context)
    }

    /// Stores a prepared file: `fill` writes its bytes (never more than `maxSize`), then the
    /// `_File` object is written and `afterSaveFile` runs.
    ///
    /// - Parameters:
    ///   - objectId: the id promised with an upload token; nil for a new one.
    ///   - key: the key promised with an upload token; nil for a new one.
    ///   - baseURL: where this host's files are served (`https://files.example.com`).
    public func store(
        _ prepared: (draft: Draft, context: [String: JSONValue]), objectId: String? = nil, key: String? = nil,
        baseURL: String, caller: Caller, fill: (FileBytesWriter) async throws -> Void
    ) async throws -> StoredObject {
        let draft = prepared.draft
        let key = key ?? Self.newKey(for: draft.name)
        let writer = FileBytesWriter(inner: try content.beginWrite(), limit: maxSize)
        let stored: StoredContent
        do {
            try await fill(writer)
            stored = try writer.finish(key: key)
        } catch {
            writer.abandon()
            throw error
        }
        var metaData = draft.metaData
        metaData["size"] = .int(Int64(stored.size))
        metaData["_checksum"] = .string(stored.md5)
        metaData["owner"] = caller.userId.map(JSONValue.string) ?? "unknown"
        var body: [String: JSONValue] = [
            "name": .string(draft.name), "mime_type": .string(draft.mimeType), "key": .string(key),
            "url": .string(Self.url(of: key, baseURL: baseURL)), "provider": "local", "bucket": "files",
            "metaData": .object(metaData),
        ]
        body["ACL"] = draft.acl
        let object: StoredObject
        do {
            object = try await data.create("_File", body: body, objectId: objectId, caller: Self.writer(for: caller))
        } catch {
            try? content.remove(key: key)
            throw error
        }
        if let hooks = hooks(.afterSaveFile, caller) {
            await hooks.runAfter(
                .afterSaveFile,
                HookEvent(className: "_File", object: object.restJSON(), context: prepared.context, caller: caller))
        }
        return object
    }

    /// Records a file that lives elsewhere (`POST /files` with a `url`): nothing is uploaded.
    public func storeExternal(url: String, _ prepared: (draft: Draft, context: [String: JSONValue]), caller: Caller)
        async throws -> StoredObject
    {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw DataAPIError(.badParameters, "An external file needs an http or https url.")
        }
        var metaData = prepared.draft.metaData
        // The JS SDK's mark of an external file; `provider` says it, and `__` keys can't be stored.
        metaData["__source"] = nil
        metaData["owner"] = caller.userId.map(JSONValue.string) ?? "unknown"
        var body: [String: JSONValue] = [
            "name": .string(prepared.draft.name), "mime_type": .string(prepared.draft.mimeType), "url": .string(url),
            "provider": "external", "metaData": .object(metaData),
        ]
        body["ACL"] = prepared.draft.acl
        let object = try await data.create("_File", body: body, caller: Self.writer(for: caller))
        if let hooks = hooks(.afterSaveFile, caller) {
            await hooks.runAfter(
                .afterSaveFile,
                HookEvent(className: "_File", object: object.restJSON(), context: prepared.context, caller: caller))
        }
        return object
    }

    /// The `_File` object with this id, as the caller may see it; nil when there is none.
    public func file(id: String, caller: Caller) async throws -> StoredObject? {
        guard try await data.storage.classExists("_File") else { return nil }
        return try await data.fetch("_File", id: id, caller: caller)
    }

    /// The `_File` object of stored content, for serving it (its URL is the credential).
    public func file(key: String) async throws -> StoredObject? {
        guard try await data.storage.classExists("_File") else { return nil }
        var query = ObjectQuery(className: "_File", limit: 1)
        query.predicate = try QueryPredicate(where: ["key": .string(key)])
        return try await data.storage.find(query).first
    }

    /// Deletes a file: its `_File` object, then its bytes, with `beforeDeleteFile` and
    /// `afterDeleteFile` around. The master key may; so may the owner when `ownersMayDelete`.
    public func delete(id: String, caller: Caller, ownersMayDelete: Bool) async throws {
        guard let file = try await file(id: id, caller: caller) else {
            throw DataAPIError(.objectNotFound, "Could not find file.")
        }
        let owner = file.fields["metaData"]?["owner"]?.stringValue
        guard caller.isMaster || (ownersMayDelete && owner != nil && owner == caller.userId) else {
            throw DataAPIError(.operationForbidden, "Forbidden to delete files: use the master key.")
        }
        var context: [String: JSONValue] = [:]
        if let hooks = hooks(.beforeDeleteFile, caller) {
            let event = try await hooks.runBefore(
                .beforeDeleteFile, HookEvent(className: "_File", object: file.restJSON(), original: file, caller: caller))
            context = event.context
        }
        try await data.delete("_File", id: id, caller: Self.writer(for: caller))
        // The object is gone first: a crash here leaves unreferenced bytes, never a dangling object.
        if let key = file.fields["key"]?.stringValue { try content.remove(key: key) }
        if let hooks = hooks(.afterDeleteFile, caller) {
            await hooks.runAfter(
                .afterDeleteFile,
                HookEvent(className: "_File", object: file.restJSON(), original: file, context: context, caller: caller))
        }
    }

    /// The file hook of this kind, when one is registered and the caller doesn't skip it.
    private func hooks(_ kind: HookKind, _ caller: Caller) -> (any WriteHooks)? {
        guard let hooks = data.hooks, !caller.skippedHooks.contains(kind), hooks.hasHook(kind, for: "_File", caller: caller)
        else { return nil }
        return hooks
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

    /// Where the content under `key` is served.
    public static func url(of key: String, baseURL: String) -> String {
        "\(baseURL)/files/\(key)"
    }

    /// A new key: 32 random hex digits, and the name's extension so that the URL shows the type.
    static func newKey(for name: String) -> String {
        let random = ObjectID.randomHex(byteCount: 16)
        let ext = MIMEType.fileExtension(of: name)
        let safe = ext.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) } && ext.count <= 10
        return ext.isEmpty || !safe ? random : "\(random).\(ext)"
    }
}

/// The writer a file's bytes go through: it refuses bytes past the size limit.
public struct FileBytesWriter: Sendable {
    let inner: any FileContentWriter
    let limit: Int
    /// Bytes written so far (a class: the writer is handed around by value).
    private let count = ByteCount()

    init(inner: any FileContentWriter, limit: Int) {
        self.inner = inner
        self.limit = limit
    }

    /// Appends bytes; 130 (413) once the file would pass the size limit.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard count.add(bytes.count) <= limit else {
            throw DataAPIError(.fileTooLarge, "The file is larger than the limit of \(limit) bytes.")
        }
        do {
            try inner.write(bytes)
        } catch {
            throw DataAPIError(.storageFailure, error.message)
        }
    }

    func finish(key: String) throws -> StoredContent {
        do {
            return try inner.finish(key: key)
        } catch {
            throw DataAPIError(.storageFailure, error.message)
        }
    }

    func abandon() {
        inner.abandon()
    }
}

/// A running total of bytes, shared by the copies of a writer.
final class ByteCount: Sendable {
    private let total = Atomic<Int>(0)

    /// Adds `bytes` and returns the new total.
    func add(_ bytes: Int) -> Int {
        total.wrappingAdd(bytes, ordering: .relaxed).newValue
    }
}
