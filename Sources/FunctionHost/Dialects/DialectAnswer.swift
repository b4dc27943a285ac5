import DataAPI
import HTTPTypes

/// How a LeanCloud answer is put into the dialects' shape (`las-maxleap-dialects.md` §3-§11).
indirect enum DialectAnswer: Sendable {
    /// `POST /classes/{C}`, `POST /users`: 200, no `Location`.
    case created(user: Bool)
    /// `GET /classes/{C}/{id}`: the object, `{}` when there is none.
    case fetch(user: Bool)
    /// Queries: `count` always there, `-1` when not asked (MyBaaS); a class that doesn't exist
    /// has no objects.
    case query
    /// `{"number":1,"updatedAt"}` and each incremented key's new value (every saved field with
    /// `?new=true`); `{"number":0}` when nothing matched.
    case update(increments: Set<String>, whole: Bool)
    /// A batch's delete: `{"number":n}`, 0 when there was nothing to delete.
    case delete
    /// A raw array: each item answered as its own request, errors in place.
    case batch([DialectAnswer])
    /// Logins and phone signups: the user, 200.
    case user
    /// `GET /users/me`: the user; an unknown session is 90100.
    case me
    /// `{"success":true}` for LeanCloud's `{}`.
    case success
    /// A function's result as the whole body.
    case function
    /// A file's metadata, 201.
    case fileUploaded
    /// 204 without a body.
    case fileDeleted
    /// Answered in the dialect's shape already (`DialectRoutes`); only errors are translated.
    case native

    /// The dialect's status and body for a LeanCloud status and JSON body; a nil body is none.
    func translate(status: HTTPResponse.Status, body: JSONValue, signed: Bool) -> (HTTPResponse.Status, JSONValue?) {
        if status.code >= 400 {
            return translateError(
                status: status, code: body["code"]?.intValue ?? Int64(status.code),
                message: body["error"]?.stringValue ?? status.reasonPhrase, signed: signed)
        }
        let body = Self.namingFiles(body)
        switch self {
        case .created(let user):
            return (.ok, user ? Self.withPhone(body) : body)
        case .fetch(let user):
            return (status, user ? Self.withPhone(body) : body)
        case .query:
            guard var members = body.objectValue else { return (status, body) }
            if members["count"] == nil { members["count"] = -1 }
            members["results"] = members["results"].map { results in .array((results.arrayValue ?? []).map(Self.withPhone)) }
            return (status, .object(members))
        case .update(let increments, let whole):
            var answer: [String: JSONValue] = ["number": 1, "updatedAt": body["updatedAt"] ?? .null]
            for (key, value) in body.objectValue ?? [:] where key != "objectId" && (whole || increments.contains(key)) {
                answer[key] = value
            }
            return (.ok, .object(answer))
        case .delete:
            // A dialect's batch answers how many it deleted (`ObjectEndpoint.deleteExisting`).
            return (.ok, ["number": body["number"] ?? 1])
        case .batch(let items):
            guard case .array(let entries) = body, entries.count == items.count else { return (status, body) }
            return (.ok, .array(zip(items, entries).map { item, entry in item.translateEntry(entry, signed: signed) }))
        case .user, .me:
            return (.ok, Self.withPhone(body))
        case .success:
            return (.ok, ["success": true])
        case .function:
            return (.ok, body["result"] ?? .null)
        case .fileUploaded:
            return (.created, Self.fileMetadata(body))
        case .fileDeleted:
            return (.noContent, nil)
        case .native:
            return (status, body)
        }
    }

    /// An error in the dialects' shape: `{"errorCode","errorMessage"}`, never below 400. Wrong
    /// keys are 90102 (90104 for a wrong sign), an unknown session on `users/me` 90100; a write
    /// or query that found nothing is no error there.
    private func translateError(status: HTTPResponse.Status, code: Int64, message: String, signed: Bool)
        -> (HTTPResponse.Status, JSONValue?)
    {
        switch (self, code) {
        case (.update, 101), (.delete, 101):
            return (.ok, ["number": 0])
        case (.query, 101):
            return (.ok, ["count": 0, "results": []])
        case (.me, 211):
            return Self.error(.unauthorized, 90100, "Invalid session token.")
        case (_, 401):
            return signed ? Self.error(.unauthorized, 90104, "Invalid sign.") : Self.error(.unauthorized, 90102, "App id and key do not match.")
        default:
            return Self.error(status.code < 400 ? .badRequest : status, code, message)
        }
    }

    /// One element of a batch answer: `{"success": x}` answered as its request, `{"error": e}` in place.
    private func translateEntry(_ entry: JSONValue, signed: Bool) -> JSONValue {
        if let success = entry["success"] {
            return translate(status: .ok, body: success, signed: signed).1 ?? [:]
        }
        let error = entry["error"] ?? [:]
        return translateError(
            status: .badRequest, code: error["code"]?.intValue ?? 1, message: error["error"]?.stringValue ?? "",
            signed: signed
        ).1 ?? [:]
    }

    /// `{"errorCode","errorMessage"}` with a status.
    static func error(_ status: HTTPResponse.Status, _ code: Int64, _ message: String) -> (HTTPResponse.Status, JSONValue?) {
        (status, ["errorCode": .int(code), "errorMessage": .string(message)])
    }

    /// A user with MaxLeap's `mobilePhone` next to LeanCloud's `mobilePhoneNumber`.
    static func withPhone(_ user: JSONValue) -> JSONValue {
        guard case .object(var members) = user, let phone = members["mobilePhoneNumber"], members["mobilePhone"] == nil
        else { return user }
        members["mobilePhone"] = phone
        return .object(members)
    }

    /// File values with their dialect name (`FileName`), by which dialect clients refer to them.
    static func namingFiles(_ value: JSONValue) -> JSONValue {
        DialectBody.mappingFiles(value) { file in
            if let name = FileName.of(.object(file)) { file["name"] = .string(name) }
        }
    }

    /// MaxLeap's upload answer for a `_File` object: `name` (what later requests name it by),
    /// `url`, `size`, `contentType`, `createTime` in epoch milliseconds, `uid` (the LAS Python
    /// SDK's id), `hash` (the MD5 of the bytes) and `region` (none here).
    static func fileMetadata(_ file: JSONValue) -> JSONValue {
        [
            "name": FileName.of(file).map(JSONValue.string) ?? .null,
            "url": file["url"] ?? .null,
            "size": file["metaData"]?["size"] ?? .null,
            "contentType": file["mime_type"] ?? .null,
            "createTime": file["createdAt"]?.stringValue.flatMap(ISODate.milliseconds(from:)).map(JSONValue.int) ?? .null,
            "uid": file["objectId"] ?? .null,
            "hash": file["metaData"]?["_checksum"] ?? .null,
            "region": .null,
        ]
    }
}
