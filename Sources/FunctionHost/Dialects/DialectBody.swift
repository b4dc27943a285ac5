import DataAPI

/// What a dialect client puts in a JSON body that LeanCloud's routes must not see.
enum DialectBody {
    /// The fields the MaxLeap JS SDK copies into every body (`JS:lib/utils.js:426-446`): they are
    /// never credentials here (the headers are) and never stored.
    static let transportFields: Set<String> = [
        "_method", "_ApplicationId", "_ApplicationKey", "_ApplicationProduction", "_MasterKey", "_ClientVersion",
        "_InstallationId", "_SessionToken", "_JavaScriptKey", "_ContentType",
    ]

    /// A body without its transport fields, with File values that name a file only by its
    /// dialect name given the id that name carries (`FileName`).
    static func cleaned(_ body: [String: JSONValue]) -> [String: JSONValue] {
        var body = body
        for key in transportFields { body.removeValue(forKey: key) }
        return body.mapValues(referencingFiles)
    }

    /// File values as a dialect client writes them (`{"__type":"File","name","url"}`, no id)
    /// get the `_File` id their name starts with, so they reference the file as LeanCloud's do.
    static func referencingFiles(_ value: JSONValue) -> JSONValue {
        mappingFiles(value) { file in
            guard file["objectId"] == nil, file["id"] == nil,
                let id = file["name"]?.stringValue.flatMap(FileName.objectId(in:))
            else { return }
            file["id"] = .string(id)
        }
    }

    /// A value with every File value in it (in objects and arrays, at any depth) changed in place.
    static func mappingFiles(_ value: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        switch value {
        case .object(var members):
            if value.typeTag == "File" {
                change(&members)
                return .object(members)
            }
            return .object(members.mapValues { mappingFiles($0, change) })
        case .array(let elements):
            return .array(elements.map { mappingFiles($0, change) })
        default:
            return value
        }
    }

    /// MaxLeap's `mobilePhone` as LeanCloud's `mobilePhoneNumber`, where only the first is given.
    static func leanCloudPhone(_ body: [String: JSONValue]) -> [String: JSONValue] {
        var body = body
        if body["mobilePhoneNumber"] == nil, let phone = body.removeValue(forKey: "mobilePhone") {
            body["mobilePhoneNumber"] = phone
        }
        return body
    }
}

/// A file's name in the dialects: MaxLeap identifies a file by a unique stored name
/// (`zcf-<uuid>.png`) rather than by an id. Here that name is the `_File`'s objectId with the
/// original name's extension (`<objectId>.png`), so a File value or an `X-ML-Fid` naming it
/// finds its `_File` without a lookup table.
enum FileName {
    /// `<objectId>.<ext>` for a `_File` object's JSON.
    static func of(_ file: JSONValue) -> String? {
        guard let id = file["objectId"]?.stringValue else { return nil }
        let original = file["name"]?.stringValue ?? ""
        guard let dot = original.lastIndex(of: "."), dot != original.startIndex else { return id }
        let ext = original[original.index(after: dot)...]
        let plain = !ext.isEmpty && ext.count <= 10 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return plain ? "\(id).\(ext)" : id
    }

    /// The objectId a dialect file name starts with (everything before the first `.`).
    static func objectId(in name: String) -> String? {
        let id = name.prefix { $0 != "." }
        return id.isEmpty ? nil : String(id)
    }
}
