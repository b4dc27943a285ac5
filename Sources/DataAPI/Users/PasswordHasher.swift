import Crypto
import Foundation
import _CryptoExtras

/// Salted, slow password hashes: PBKDF2-HMAC-SHA256 at OWASP's 210 000 rounds, stored as
/// `pbkdf2_sha256$<rounds>$<salt base64>$<hash base64>`, so the rounds can grow later and
/// old hashes still verify.
public enum PasswordHasher {
    /// Rounds for new hashes.
    static let rounds = 210_000
    private static let prefix = "pbkdf2_sha256"

    /// A new hash of `password`, with a fresh random salt.
    public static func hash(_ password: String) -> String {
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        let derived = derive(password, salt: salt, rounds: rounds)
        return [prefix, String(rounds), salt.base64EncodedString(), derived.base64EncodedString()].joined(separator: "$")
    }

    /// Whether `password` matches a stored hash; false for anything that isn't one.
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == prefix, let rounds = Int(parts[1]), rounds > 0, rounds <= 10_000_000,
            let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3])
        else { return false }
        let derived = derive(password, salt: salt, rounds: rounds)
        // Compared in constant time: how much of a guess was right must not leak.
        guard derived.count == expected.count else { return false }
        return zip(derived, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Whether a stored value is one of these hashes (and not, say, a password in clear).
    public static func isHash(_ stored: String) -> Bool {
        stored.hasPrefix(prefix + "$")
    }

    private static func derive(_ password: String, salt: Data, rounds: Int) -> Data {
        // Only an output size of zero makes PBKDF2 throw; 32 bytes never does.
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key?.withUnsafeBytes { Data($0) } ?? Data()
    }
}
