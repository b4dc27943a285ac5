import DataAPI
import Foundation
import TestSupport
import _CryptoExtras

@testable import FunctionHost
import JSON

/// Sign in with Apple played by the tests: an RSA key of its own, published as a JSON Web Key
/// Set file, signing identity tokens the way Apple does (RS256, `kid` in the header), so the
/// server's verifier checks real signatures.
struct AppleIssuer: Sendable {
    /// The client id the test app is configured with.
    static let clientId = "com.example.app"

    let key: _RSA.Signing.PrivateKey
    let kid: String

    /// A new 2048-bit key (Apple's size) under key id `kid`.
    init(kid: String = "apple-test-key") throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.kid = kid
    }

    /// The key set Apple would publish at https://appleid.apple.com/auth/keys.
    func jwks() throws -> JSONValue {
        let primitives = try key.publicKey.getKeyPrimitives()
        return [
            "keys": [
                [
                    "kty": "RSA", "kid": .string(kid), "use": "sig", "alg": "RS256",
                    "n": .string(Self.base64URL(primitives.modulus)), "e": .string(Self.base64URL(primitives.publicExponent)),
                ]
            ]
        ]
    }

    /// Writes the key set to a file in `directory` and returns its path (`--apple-jwks`).
    func writeJWKS(in directory: String) throws -> String {
        let path = directory + "/apple-keys.json"
        try jwks().jsonString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An identity token for `sub` that expires at `expires` (on the server's clock); each claim
    /// may be changed to make a bad one.
    func token(
        sub: String, expires: Date, aud: String = AppleIssuer.clientId, issuer: String = AppleIDVerifier.issuer,
        kid: String? = nil
    ) throws -> String {
        let header: JSONValue = ["alg": "RS256", "kid": .string(kid ?? self.kid)]
        let claims: JSONValue = [
            "iss": .string(issuer), "aud": .string(aud), "sub": .string(sub),
            "iat": .int(Int64(expires.timeIntervalSince1970) - 600), "exp": .int(Int64(expires.timeIntervalSince1970)),
        ]
        let input = Self.base64URL(Data(header.jsonString.utf8)) + "." + Self.base64URL(Data(claims.jsonString.utf8))
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    /// The `authData` of a Sign in with Apple login, as LeanCloud's SDKs send it.
    static func authData(uid: String, token: String) -> JSONValue {
        ["authData": ["lc_apple": ["uid": .string(uid), "identity_token": .string(token), "code": "unused"]]]
    }

    /// Base64url without padding (RFC 7515's encoding), written here so the tests don't share
    /// the server's decoder.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension TestServer {
    /// A server on a fresh directory whose authData verification `configure` sets (trusted
    /// providers, verifiers), on `clock`.
    static func run<Value: Sendable>(
        authData configure: @escaping (inout AuthDataVerification, String) throws -> Void, clock: TestClock = TestClock(),
        functions: FunctionRegistry = FunctionRegistry(), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let directory = try makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configured = AuthDataVerification()
        try configure(&configured, directory)
        let verification = configured
        return try await run(
            dataDirectory: directory, functions: functions,
            configure: { configuration in
                configuration.authDataVerification = verification
                configuration.clock = { clock.now }
            }, body)
    }

    /// A server that trusts every third-party account unverified
    /// (`--trust-unverified-auth-data`): for tests of what happens once an account is accepted.
    static func runTrustingAuthData<Value: Sendable>(
        clock: TestClock = TestClock(), functions: FunctionRegistry = FunctionRegistry(), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        try await run(authData: { verification, _ in verification.trustsUnverified = .all }, clock: clock, functions: functions, body)
    }
}
