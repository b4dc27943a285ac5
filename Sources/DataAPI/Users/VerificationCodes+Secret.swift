import Crypto
import Foundation

extension VerificationCodes {
    /// The key a code's stored form (`codeHash`) is an HMAC-SHA256 under: derived from the
    /// master key, so every host sharing the database and keys agrees on it, and anyone who reads
    /// `_VerificationCode` without the master key learns nothing about the codes.
    ///
    /// Codes stored before codes were keyed (a bare SHA-256) no longer match and stop working;
    /// they lived minutes to a day, so a user at most asks for a new one.
    public struct Secret: Sendable {
        /// The key's bytes (swift-crypto's `SymmetricKey` isn't `Sendable`).
        private let key: [UInt8]

        /// The secret of an app: HMAC-SHA256(master key, "functionhost verification codes"). A
        /// label of its own keeps this key apart from anything else derived from the master key.
        public init(masterKey: String) {
            let derived = HMAC<SHA256>.authenticationCode(
                for: Data("functionhost verification codes".utf8), using: SymmetricKey(data: Data(masterKey.utf8)))
            key = Array(derived)
        }

        /// What is stored for `code`: HMAC-SHA256(key, code), in hex.
        public func digest(of code: String) -> String {
            HMAC<SHA256>.authenticationCode(for: Data(code.utf8), using: SymmetricKey(data: key)).map { String(format: "%02x", $0) }.joined()
        }
    }
}
