package import JSON

/// The UnionID an `authData` entry may carry (LeanCloud's UnionID login): one id a platform
/// (WeChat, QQ, Weibo) gives a person across all of a developer's apps, each app being its
/// own provider key with its own openid. `{"weixin_app": {"openid": "o1", "unionid": "u1",
/// "platform": "weixin", "main_account": true}}` names UnionID `u1` on platform `weixin`; the
/// user that holds `authData._weixin_unionid.uid == "u1"` is that UnionID's main account, and
/// a login with the same UnionID and platform under another provider key finds it. Only a
/// UnionID something vouched for is followed or claimed (`CheckedAuthData`).
package struct UnionID: Sendable, Equatable {
    /// The UnionID itself.
    public let id: String
    /// The platform it belongs to (`unionIdPlatform` in the SDKs); only ids of the same
    /// platform are the same person.
    public let platform: String
    /// Whether this login makes (or keeps) its user the UnionID's main account.
    public let isMainAccount: Bool

    /// The UnionID of an `authData` entry; nil when the entry has no `unionid` and `platform`.
    ///
    /// - Throws: 105 when the platform is not letters, digits and `_`: it becomes part of a
    ///   field name (`_weixin_unionid`), so it can't carry a `.` or a `$`.
    public init?(entry: JSONValue) throws {
        guard let id = entry["unionid"]?.stringValue, !id.isEmpty,
            let platform = entry["platform"]?.stringValue, !platform.isEmpty
        else { return nil }
        guard platform.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") })
        else {
            throw DataAPIError(.invalidKeyName, "authData platform '\(platform)' must be letters, digits and _.")
        }
        self.id = id
        self.platform = platform
        self.isMainAccount = entry["main_account"]?.boolValue ?? false
    }

    /// The `authData` key that marks the main account: `_<platform>_unionid`.
    public var key: String { "_\(platform)_unionid" }

    /// The entry stored under `key`: `{"uid": <UnionID>}`.
    public var entry: JSONValue { ["uid": .string(id)] }

    /// The platform of a main-account marker key (`weixin` for `_weixin_unionid`); nil for any
    /// other key.
    static func platform(ofMarker key: String) -> String? {
        guard key.hasPrefix("_"), key.hasSuffix("_unionid"), key.count > "__unionid".count else { return nil }
        return String(key.dropFirst().dropLast("_unionid".count))
    }
}
