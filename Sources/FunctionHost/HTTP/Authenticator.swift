import Crypto
import DataAPI
import HTTPTypes
import Hummingbird

/// Decides who a request comes from, from LeanCloud's headers, their legacy AVOSCloud, Uluru and
/// Parse aliases, or the `_ApplicationId`-style fields browsers put in `text/plain` bodies.
struct Authenticator: Sendable {
    let keys: AppKeys

    /// The credentials a request presents, wherever they came from.
    struct Credentials: Sendable {
        var appId: String?
        var key: String?
        var masterKey: String?
        var sign: String?
        var hookKey: String?
    }

    /// The caller, or nil when the credentials are wrong or missing.
    func caller(for credentials: Credentials) -> Caller? {
        guard let appId = credentials.appId, Self.constantTimeEqual(appId, keys.appId) else { return nil }
        if let masterKey = credentials.masterKey {
            return Self.constantTimeEqual(masterKey, keys.masterKey) ? Caller(isMaster: true) : nil
        }
        if let sign = credentials.sign {
            return verifySign(sign)
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

    /// `X-LC-Sign: md5(timestamp + key),timestamp[,master]`.
    private func verifySign(_ sign: String) -> Caller? {
        let parts = sign.split(separator: ",").map(String.init)
        guard parts.count >= 2 else { return nil }
        let isMaster = parts.count >= 3 && parts[2] == "master"
        let key = isMaster ? keys.masterKey : keys.appKey
        let digest = Insecure.MD5.hash(data: Array((parts[1] + key).utf8))
        let expected = digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return Self.constantTimeEqual(parts[0].lowercased(), expected) ? Caller(isMaster: isMaster) : nil
    }

    /// Compares secrets without leaking, through timing, how much of a guess was right.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The credentials in a request's headers.
    static func credentials(from headers: HTTPFields) -> Credentials {
        func first(_ names: HTTPField.Name...) -> String? {
            for name in names {
                if let value = headers[name], !value.isEmpty { return value }
            }
            return nil
        }
        return Credentials(
            appId: first(.lcId, .avosApplicationId, .uluruApplicationId, .parseApplicationId),
            key: first(
                .lcKey, .avosApplicationKey, .uluruApplicationKey, .parseRESTAPIKey, .parseJavascriptKey,
                .parseClientKey),
            masterKey: first(.avosMasterKey, .uluruMasterKey, .parseMasterKey),
            sign: first(.lcSign, .avosRequestSign),
            hookKey: first(.lcHookKey))
    }

    /// The credentials in a `text/plain` JSON body (`_ApplicationId`, `_ApplicationKey`, `_MasterKey`).
    static func credentials(fromBody body: JSONValue) -> Credentials {
        Credentials(
            appId: body["_ApplicationId"]?.stringValue, key: body["_ApplicationKey"]?.stringValue,
            masterKey: body["_MasterKey"]?.stringValue, sign: nil, hookKey: nil)
    }
}
