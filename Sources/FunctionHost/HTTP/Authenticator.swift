import Crypto
import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import JSON

/// Decides who a request comes from, from LeanCloud's headers, their legacy AVOSCloud, Uluru and
/// Parse aliases, or the `_ApplicationId`-style fields browsers put in `text/plain` bodies.
struct Authenticator: Sendable {
    let keys: AppKeys
    /// How far a signature's timestamp may be from `now`, either way.
    var signatureWindow: TimeInterval = 15 * 60
    /// The server's clock.
    var now: @Sendable () -> Date = { Date() }

    /// The credentials a request presents, wherever they came from.
    struct Credentials: Sendable {
        var appId: String?
        var key: String?
        var masterKey: String?
        var sign: String?
        var hookKey: String?
    }

    /// The caller, or nil when the credentials are wrong or missing. A request in a LAS or
    /// MaxLeap dialect may also sign in MaxLeap's form (`keyFirstSHA256`).
    func caller(for credentials: Credentials, inDialect: Bool = false) -> Caller? {
        guard let appId = credentials.appId, Self.constantTimeEqual(appId, keys.appId) else { return nil }
        if let masterKey = credentials.masterKey {
            return Self.constantTimeEqual(masterKey, keys.masterKey) ? Caller(isMaster: true) : nil
        }
        if let sign = credentials.sign {
            return verifySign(sign, keyFirstSHA256: inDialect)
        }
        if let key = credentials.key {
            let parts = key.split(separator: ",", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[1] == "master" {
                return Self.constantTimeEqual(parts[0], keys.masterKey) ? Caller(isMaster: true) : nil
            }
            // The master key without the `,master` suffix is accepted as a client key, as
            // LeanEngine does: it authenticates but grants no master rights.
            return Self.constantTimeEqual(key, keys.appKey) || Self.constantTimeEqual(key, keys.masterKey)
                ? Caller(isMaster: false) : nil
        }
        return nil
    }

    /// Whether a dialect request names the app (its right id) and no key, master key or sign:
    /// MaxLeap's server then takes the request's session as its credential
    /// (`BAAS:…/AccessControlServiceImpl.java:218-236`, a session ranking above every key, and
    /// `DOC:AccountSystem.md:79-118`'s curls). LeanCloud's protocol needs a key with a session.
    func isAppIdOnly(_ credentials: Credentials, inDialect: Bool) -> Bool {
        guard inDialect, credentials.key == nil, credentials.masterKey == nil, credentials.sign == nil,
            let appId = credentials.appId
        else { return false }
        return Self.constantTimeEqual(appId, keys.appId)
    }

    /// Whether `key` is the app's hook key.
    func isHookKey(_ key: String?) -> Bool {
        key.map { Self.constantTimeEqual($0, keys.hookKey) } ?? false
    }

    /// `X-LC-Sign: md5(timestamp + key),timestamp[,master]`, with a timestamp within the window
    /// around the server's clock: without that bound, one signature seen in a log or a proxy
    /// would be the master key for good. With `keyFirstSHA256`, a 64-digit signature is MaxLeap's
    /// `sha256(key + timestamp)` instead (`BAAS:…/AccessControlServiceImpl.java:325-364`), under
    /// the same window.
    private func verifySign(_ sign: String, keyFirstSHA256: Bool = false) -> Caller? {
        let parts = sign.split(separator: ",").map(String.init)
        guard parts.count >= 2, let signedAt = Self.date(ofTimestamp: parts[1]),
            abs(signedAt.timeIntervalSince(now())) <= signatureWindow
        else { return nil }
        let isMaster = parts.count >= 3 && parts[2] == "master"
        let key = isMaster ? keys.masterKey : keys.appKey
        let bytes: [UInt8] =
            keyFirstSHA256 && parts[0].count == 64
            ? Array(SHA256.hash(data: Array((key + parts[1]).utf8)))
            : Array(Insecure.MD5.hash(data: Array((parts[1] + key).utf8)))
        let expected = bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return Self.constantTimeEqual(parts[0].lowercased(), expected) ? Caller(isMaster: isMaster) : nil
    }

    /// A signature's timestamp: milliseconds, as LeanCloud documents it and the JS, .NET and
    /// Dart SDKs send it, or seconds, as the PHP SDK sends it (a count of seconds is below 10^12
    /// until the year 33658; milliseconds have been above it since 2001).
    static func date(ofTimestamp text: String) -> Date? {
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), value > 0 else { return nil }
        return Date(timeIntervalSince1970: value >= 1_000_000_000_000 ? Double(value) / 1000 : Double(value))
    }

    /// Compares secrets without leaking, through timing, how much of a guess was right.
    /// Walks both texts' UTF-8 in place: copying each into an array cost every request two
    /// allocations per comparison.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a.utf8, b.utf8) { difference |= x ^ y }
        return difference == 0
    }

    /// The credentials in a request's headers.
    ///
    /// One pass over the headers: looking each of the 14 names up in turn scanned them 14 times
    /// on every request. Where a request repeats a credential under several names, LeanCloud's
    /// own name wins over the legacy ones, as the order of `Source` says.
    static func credentials(from headers: HTTPFields) -> Credentials {
        // One slot per credential, not a dictionary: building one cost each request more than
        // the pass itself.
        var appId, key, masterKey, sign, hookKey: (rank: Int, value: String)?
        for field in headers where !field.value.isEmpty {
            guard let (source, rank) = Self.sources[field.name] else { continue }
            func keep(in slot: inout (rank: Int, value: String)?) {
                if let held = slot, held.rank <= rank { return }
                slot = (rank, field.value)
            }
            switch source {
            case .appId: keep(in: &appId)
            case .key: keep(in: &key)
            case .masterKey: keep(in: &masterKey)
            case .sign: keep(in: &sign)
            case .hookKey: keep(in: &hookKey)
            }
        }
        return Credentials(
            appId: appId?.value, key: key?.value, masterKey: masterKey?.value, sign: sign?.value, hookKey: hookKey?.value)
    }

    /// Which credential a header carries.
    private enum Source: Hashable {
        case appId, key, masterKey, sign, hookKey
    }

    /// Every credential header, with its precedence among the names of the same credential.
    private static let sources: [HTTPField.Name: (Source, Int)] = {
        let names: [(Source, [HTTPField.Name])] = [
            (.appId, [.lcId, .avosApplicationId, .uluruApplicationId, .parseApplicationId]),
            (.key, [
                .lcKey, .avosApplicationKey, .uluruApplicationKey, .parseRESTAPIKey, .parseJavascriptKey,
                .parseClientKey,
            ]),
            (.masterKey, [.avosMasterKey, .uluruMasterKey, .parseMasterKey]),
            (.sign, [.lcSign, .avosRequestSign]),
            (.hookKey, [.lcHookKey]),
        ]
        var sources: [HTTPField.Name: (Source, Int)] = [:]
        for (source, list) in names {
            for (rank, name) in list.enumerated() { sources[name] = (source, rank) }
        }
        return sources
    }()

    /// The credentials in a `text/plain` JSON body (`_ApplicationId`, `_ApplicationKey`, `_MasterKey`).
    static func credentials(fromBody body: JSONValue) -> Credentials {
        Credentials(
            appId: body["_ApplicationId"]?.stringValue, key: body["_ApplicationKey"]?.stringValue,
            masterKey: body["_MasterKey"]?.stringValue, sign: nil, hookKey: nil)
    }
}
