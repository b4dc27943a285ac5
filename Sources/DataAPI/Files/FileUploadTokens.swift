import Crypto
package import Foundation
import JSON

/// LeanCloud's token upload: `POST /fileTokens` promises an id, a key and an upload URL; the
/// client PUTs the bytes there (no app keys: the token is the credential, as with a presigned
/// S3 URL); `POST /fileCallback` reports how it went. The `_File` object is written when the
/// bytes arrive, so a client that never calls back still has its file.
///
/// Tokens live in the database (class `_FileToken`, master only), so any host of several takes
/// the upload; only a SHA-256 of each token is stored.
package struct FileUploadTokens: Sendable {
    /// The files the uploads become.
    public let files: FileService
    /// How long a token can be used.
    public var lifetime: TimeInterval = 3600
    /// The clock.
    public var now: @Sendable () -> Date = { Date() }

    static let className = "_FileToken"

    /// Creates the token store.
    public init(files: FileService) {
        self.files = files
    }

    /// What `fileTokens` answers.
    public struct Issued: Sendable {
        /// The upload token.
        public let token: String
        /// The `_File` object's id, once the bytes arrive.
        public let objectId: String
        /// The content's key.
        public let key: String
        /// The file as the before-hook left it.
        public let draft: FileService.Draft
    }

    /// Runs `beforeSaveFile` and issues a token for uploading the file.
    ///
    /// - Parameter key: the storage key asked for (`key` in `fileTokens`). Only the master key
    ///   chooses one, and only a free one (else 137); a client's is refused with LeanCloud's code
    ///   1 before anything is recorded (the SDKs send `key` only when the app set one).
    public func issue(_ draft: FileService.Draft, key: String? = nil, caller: Caller) async throws -> Issued {
        let chosen = key.flatMap { $0.isEmpty ? nil : $0 }
        if chosen != nil, !caller.isMaster {
            throw DataAPIError(.badParameters, "Unsupported file key. Please use masterKey to set file key.")
        }
        if let chosen {
            guard LocalFileStore.isValidKey(chosen) else {
                throw DataAPIError(.badParameters, "Invalid file key '\(chosen)': use letters, digits, '.', '_' and '-'.")
            }
            guard try await files.isFreeKey(chosen), try await pending(key: chosen) == nil else {
                throw DataAPIError(.duplicateValue, "A file with the key '\(chosen)' already exists.")
            }
        }
        let prepared = try await files.prepare(draft, caller: caller)
        let token = ObjectID.randomHex(byteCount: 24)
        let issued = Issued(
            token: token, objectId: ObjectID.make(), key: chosen ?? FileService.newKey(for: prepared.draft.name),
            draft: prepared.draft)
        var record: [String: JSONValue] = [
            "tokenHash": .string(Self.hash(token)), "fileId": .string(issued.objectId), "key": .string(issued.key),
            "name": .string(prepared.draft.name), "mime_type": .string(prepared.draft.mimeType),
            "metaData": .object(prepared.draft.metaData), "context": .object(prepared.context),
            "environment": .string(caller.environment.rawValue), "expiresAt": .double(now().timeIntervalSince1970 + lifetime),
            "used": false, "uploaded": false, "keepFileName": .bool(prepared.draft.keepFileName),
        ]
        record["caller"] = caller.user
        record["fileACL"] = prepared.draft.acl
        _ = try await files.data.create(Self.className, body: record, caller: Caller.master.withoutHooks)
        return issued
    }

    /// Stores the bytes of a token's upload (`fill` writes them) and writes its `_File` object.
    /// A token works once, and only before it expires: else 603.
    public func upload(token: String, urls: FileURLs, fill: (FileBytesWriter) async throws -> Void) async throws
        -> StoredObject
    {
        guard let record = try await record(token), record.fields["used"] == false, isLive(record) else { throw Self.invalid }
        // Claimed only if nobody else did first: two PUTs racing with one token store one file.
        try await claim(record, setting: ["used": true], where: ["used": false])
        let fields = record.fields
        var draft = FileService.Draft(
            name: fields["name"]?.stringValue ?? "file", mimeType: fields["mime_type"]?.stringValue,
            metaData: fields["metaData"]?.objectValue ?? [:], acl: fields["fileACL"])
        draft.keepFileName = fields["keepFileName"] == true
        let caller = Caller(
            isMaster: false, environment: fields["environment"]?.stringValue.flatMap(EnvironmentName.init(rawValue:)) ?? .production, user: fields["caller"])
        let object: StoredObject
        do {
            // In the environment the token was issued for: the caller carries it.
            object = try await files.store(
                FileService.Prepared(draft: draft, context: fields["context"]?.objectValue ?? [:]), objectId: fields["fileId"]?.stringValue,
                key: fields["key"]?.stringValue, urls: urls, caller: caller, fill: fill)
        } catch {
            // Nothing was stored: the token is free again, so the client can retry the PUT.
            _ = try? await files.data.update(
                Self.className, id: record.objectId, body: ["used": false], caller: Caller.master.withoutHooks)
            throw error
        }
        _ = try? await files.data.update(
            Self.className, id: record.objectId, body: ["uploaded": true], caller: Caller.master.withoutHooks)
        return object
    }

    /// `fileCallback`: `result: true` confirms an upload (its bytes must have arrived: else 603);
    /// `result: false` gives the token up, and removes the file if its bytes did arrive.
    ///
    /// A callback settles its upload once, while the token lives: a confirmed upload is the
    /// app's file from then on, and a token found again later (or after it expired) is refused
    /// with 603, so whoever holds an old token can't delete the file it became. Two callbacks
    /// racing settle it once: the token is claimed with a condition, as the upload claims it.
    public func callback(token: String, succeeded: Bool) async throws {
        guard let record = try await record(token), isLive(record) else { throw Self.invalid }
        let uploaded = record.fields["uploaded"] == true
        if succeeded, !uploaded { throw DataAPIError(.invalidCode, "The file's bytes never arrived.") }
        try await claim(record, setting: ["settled": true], where: ["settled": ["$ne": true]])
        if succeeded { return }
        if uploaded, let id = record.fields["fileId"]?.stringValue {
            let environment = record.fields["environment"]?.stringValue.flatMap(EnvironmentName.init(rawValue:)) ?? .production
            var master = Caller.master
            master.environment = environment
            try? await files.delete(id: id, caller: master, ownersMayDelete: false)
        }
        try await files.data.delete(Self.className, id: record.objectId, caller: Caller.master.withoutHooks)
    }

    static let invalid = DataAPIError(.invalidCode, "Invalid or expired upload token.")

    /// Whether the token is still within its life.
    private func isLive(_ record: StoredObject) -> Bool {
        (record.fields["expiresAt"]?.doubleValue ?? 0) > now().timeIntervalSince1970
    }

    /// Sets `body` on the token's record only while `condition` holds on it (else 603): what
    /// makes two racing PUTs store one file, and two racing callbacks settle it once.
    private func claim(_ record: StoredObject, setting body: [String: JSONValue], where condition: JSONValue) async throws {
        do {
            _ = try await files.data.update(
                Self.className, id: record.objectId, body: body, condition: try QueryPredicate(where: condition),
                caller: Caller.master.withoutHooks)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            throw Self.invalid
        }
    }

    /// A token not yet redeemed that promises this key.
    private func pending(key: String) async throws -> StoredObject? {
        try await first(where: ["key": .string(key), "uploaded": false])
    }

    /// The record of a token, whatever its state.
    private func record(_ token: String) async throws -> StoredObject? {
        try await first(where: ["tokenHash": .string(Self.hash(token))])
    }

    /// The first token record matching `where`.
    /// Tokens live with production's data whichever environment uploads (the PUT that redeems
    /// one carries no environment): they are written as `Caller.master`, production's caller,
    /// and read from production's engine.
    private func first(where conditions: [String: JSONValue]) async throws -> StoredObject? {
        let storage = files.data.engines.production
        guard try await storage.classExists(Self.className) else { return nil }
        var query = ObjectQuery(className: Self.className, limit: 1)
        query.predicate = try QueryPredicate(where: .object(conditions))
        return try await storage.find(query).first
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
