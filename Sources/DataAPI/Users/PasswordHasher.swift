import Crypto
import Foundation
import _CryptoExtras

/// Salted, slow password hashes: PBKDF2-HMAC-SHA256 at OWASP's 210 000 rounds, stored as
/// `pbkdf2_sha256$<rounds>$<salt base64>$<hash base64>`, so the rounds can grow later and
/// old hashes still verify.
///
/// Only the server makes these hashes: a password arriving in a request is always hashed, even
/// when its text looks like a hash (a client choosing its stored hash could choose ten million
/// rounds, and every later check of it would burn a second of CPU); only `import` stores hashes
/// as they are. Verification refuses more rounds than `maxRounds` before deriving anything.
///
/// Hashes imported from a LeanCloud export verify too (`leancloud_sha512$<salt>$<hash>`, see
/// `leanCloudHash`); a login that matches one re-hashes the password with PBKDF2.
package enum PasswordHasher {
    /// Rounds for new hashes.
    static let rounds = 210_000
    /// The most rounds a stored hash may ask for: about five times today's, room to raise
    /// `rounds` (OWASP's 600 000 for SHA-256, say) while a hash asking for more, which no version
    /// of this host wrote, fails at once instead of costing seconds of CPU per login.
    static let maxRounds = 1_000_000
    private static let prefix = "pbkdf2_sha256"

    /// A new hash of `password`, with a fresh random salt, derived on `work`'s threads.
    public static func hash(_ password: String, on work: PasswordWork = .shared) async -> String {
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        let derived = await work.run { derive(password, salt: salt, rounds: rounds) }
        return [prefix, String(rounds), salt.base64EncodedString(), derived.base64EncodedString()].joined(separator: "$")
    }

    /// Whether `password` matches a stored hash; false for anything that isn't one. The
    /// derivation runs on `work`'s threads.
    public static func verify(_ password: String, against stored: String, on work: PasswordWork = .shared) async -> Bool {
        if stored.hasPrefix(leanCloudPrefix + "$") { return await work.run { verifyLeanCloud(password, against: stored) } }
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == prefix, let rounds = Int(parts[1]), rounds > 0, rounds <= maxRounds,
            let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3])
        else { return false }
        let derived = await work.run { derive(password, salt: salt, rounds: rounds) }
        return constantTimeEqual(derived, expected)
    }

    /// Whether a stored value is one of these hashes (and not, say, a password in clear).
    public static func isHash(_ stored: String) -> Bool {
        stored.hasPrefix(prefix + "$") || stored.hasPrefix(leanCloudPrefix + "$")
    }

    /// Whether a stored hash should be replaced by a new one at the next successful login: an
    /// imported LeanCloud hash, or a PBKDF2 hash with fewer rounds than new ones get.
    public static func needsRehash(_ stored: String) -> Bool {
        if stored.hasPrefix(leanCloudPrefix + "$") { return true }
        let parts = stored.split(separator: "$")
        return parts.count == 4 && parts[0] == prefix && (Int(parts[1]) ?? 0) < rounds
    }

    // MARK: LeanCloud's exported hashes

    private static let leanCloudPrefix = "leancloud_sha512"

    /// The stored form of a hash from a LeanCloud `_User` export (`salt` and `password`):
    /// SHA-512 of salt then password, hashed again 512 times, in base64.
    public static func leanCloudHash(salt: String, hash: String) -> String {
        [leanCloudPrefix, salt, hash].joined(separator: "$")
    }

    /// LeanCloud's published scheme (its console guide, "导出用户数据的加密算法").
    static func leanCloudDigest(_ password: String, salt: String, rehashes: Int = 512) -> Data {
        var digest = Data(SHA512.hash(data: Data((salt + password).utf8)))
        for _ in 0..<rehashes { digest = Data(SHA512.hash(data: digest)) }
        return digest
    }

    private static func verifyLeanCloud(_ password: String, against stored: String) -> Bool {
        // The salt is LeanCloud's alphabet (letters and digits), so it never holds a `$`.
        let parts = stored.split(separator: "$", maxSplits: 2).map(String.init)
        guard parts.count == 3, let expected = Data(base64Encoded: parts[2]) else { return false }
        return constantTimeEqual(leanCloudDigest(password, salt: parts[1]), expected)
    }

    /// Compared in constant time: how much of a guess was right must not leak.
    private static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: Data, rounds: Int) -> Data {
        // Only an output size of zero makes PBKDF2 throw; 32 bytes never does.
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key?.withUnsafeBytes { Data($0) } ?? Data()
    }
}
