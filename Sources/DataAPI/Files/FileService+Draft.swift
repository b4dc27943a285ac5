public import JSON

extension FileService {
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
        /// Whether the URL ends with the file's name (`keep_file_name`), so that downloads keep it.
        public var keepFileName = false

        /// Creates a draft; the MIME type defaults to the one of the name's extension.
        public init(
            name: String, mimeType: String? = nil, metaData: [String: JSONValue] = [:], acl: JSONValue? = nil,
            declaredSize: Int? = nil
        ) {
            self.name = name
            self.mimeType = mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? MIMEType.forName(name)
            self.metaData = metaData
            // The JS, Python and PHP SDKs send `"ACL": null` for a file they gave no ACL.
        self.acl = acl == .null ? nil : acl
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

    /// A draft that passed its checks and `beforeSaveFile`, with what the hook left for
    /// `afterSaveFile`.
    public struct Prepared: Sendable {
        /// The file as the hook left it.
        public var draft: Draft
        /// The before-hook's context.
        public var context: [String: JSONValue]
    }
}
