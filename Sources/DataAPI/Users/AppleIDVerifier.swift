import _CryptoExtras
package import Foundation
package import JSON

/// Sign in with Apple, checked on this host alone. LeanCloud's SDKs send it as
/// `authData.lc_apple`: `{"uid": <Apple's user identifier>, "identity_token": <JWT>, "code": ...}`.
///
/// The identity token must be signed (RS256) by a key of the JSON Web Key Set the operator gives
/// (Apple publishes it at https://appleid.apple.com/auth/keys; the server fetches nothing, so
/// a login never waits on Apple), issued by `https://appleid.apple.com`, meant for one of the
/// app's client ids (`aud`: its bundle id or services id), unexpired, and about `uid` (`sub`).
/// `code` is not exchanged for Apple's tokens: that needs the team's private key and Apple's
/// network, and the identity token alone proves the account.
package struct AppleIDVerifier: AuthDataVerifier {
    /// The `authData` key LeanCloud's SDKs use for Apple (`LCUser.AuthDataPlatform.apple`).
    public static let provider = "lc_apple"
    /// The `iss` of every identity token Apple signs.
    public static let issuer = "https://appleid.apple.com"

    /// Apple's public keys, by key id (`kid`).
    let keys: [String: _RSA.Signing.PublicKey]
    /// The app's client ids: tokens for any other `aud` are refused.
    public let clientIds: Set<String>

    /// A verifier over a JSON Web Key Set (`{"keys": [{"kty": "RSA", "kid", "n", "e", ...}]}`);
    /// keys of other types are skipped.
    ///
    /// - Throws: `DataAPIError` (`invalidConfiguration`) when the set isn't JSON, has no usable RSA key, has an RSA key
    ///   that doesn't decode or is under 2048 bits, or when no client id is given.
    public init(jwks: some Collection<UInt8>, clientIds: Set<String>) throws(DataAPIError) {
        guard !clientIds.isEmpty else { throw DataAPIError(.invalidConfiguration, "Sign in with Apple needs at least one client id.") }
        guard let set = try? JSONValue(parsing: jwks), let entries = set["keys"]?.arrayValue else {
            throw DataAPIError(.invalidConfiguration, "a JSON Web Key Set is an object with a \"keys\" array.")
        }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for entry in entries where entry["kty"] == "RSA" {
            guard let kid = entry["kid"]?.stringValue, let n = entry["n"]?.stringValue.flatMap(JSONWebToken.base64URLDecoded),
                let e = entry["e"]?.stringValue.flatMap(JSONWebToken.base64URLDecoded),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw DataAPIError(.invalidConfiguration, "an RSA key needs a kid and a base64url n and e.") }
            // Apple's keys are 2048 bits; anything weaker would be a forgery waiting to happen.
            guard key.keySizeInBits >= 2048 else { throw DataAPIError(.invalidConfiguration, "key \(kid) is under 2048 bits.") }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw DataAPIError(.invalidConfiguration, "the key set has no RSA key.") }
        self.keys = keys
        self.clientIds = clientIds
    }

    /// A verifier over the key set in a file (`--apple-jwks`).
    public init(jwksFile path: String, clientIds: Set<String>) throws(DataAPIError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DataAPIError(.invalidConfiguration, "can't read \(path).")
        }
        try self.init(jwks: data, clientIds: clientIds)
    }

    /// Checks the identity token against `uid`, the keys, the client ids and `time`.
    public func verify(_ entry: JSONValue, at time: Date) throws(DataAPIError) {
        guard let uid = entry["uid"]?.stringValue, !uid.isEmpty else { throw AuthDataVerification.refusal("it has no uid.") }
        guard let text = entry["identity_token"]?.stringValue, !text.isEmpty else {
            throw AuthDataVerification.refusal("it has no identity_token (Sign in with Apple's identityToken).")
        }
        guard let token = JSONWebToken(text) else { throw AuthDataVerification.refusal("its identity_token is not a JSON Web Token.") }
        // The algorithm is fixed here, never taken from the token: a token can't talk its way
        // into `none` or an HMAC keyed with the public key.
        guard token.header["alg"] == "RS256" else { throw AuthDataVerification.refusal("its identity_token is not signed with RS256.") }
        guard let kid = token.header["kid"]?.stringValue, let key = keys[kid] else {
            throw AuthDataVerification.refusal("its identity_token is signed with a key that isn't in the configured Apple key set.")
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
        guard key.isValidSignature(signature, for: token.signingInput, padding: .insecurePKCS1v1_5) else {
            throw AuthDataVerification.refusal("its identity_token's signature is not valid.")
        }
        guard token.claims["iss"] == .string(Self.issuer) else {
            throw AuthDataVerification.refusal("its identity_token was not issued by \(Self.issuer).")
        }
        let audiences = token.claims["aud"].map { $0.arrayValue ?? [$0] } ?? []
        guard audiences.contains(where: { $0.stringValue.map(clientIds.contains) == true }) else {
            throw AuthDataVerification.refusal("its identity_token is meant for another app (aud).")
        }
        guard let expiry = token.claims["exp"]?.doubleValue, expiry > time.timeIntervalSince1970 else {
            throw AuthDataVerification.refusal("its identity_token has expired.")
        }
        guard token.claims["sub"]?.stringValue == uid else {
            throw AuthDataVerification.refusal("its identity_token is about another Apple account (sub is not uid).")
        }
    }
}
