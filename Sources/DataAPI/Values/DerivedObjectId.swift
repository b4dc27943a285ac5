import Crypto
import Foundation

/// An objectId made from a key rather than drawn at random: the same on every host, so a record
/// that must exist once per key (a task per uniqueId, a timer per name, a follow per pair, a
/// statistic per board and member) is created under it and the database's unique ids refuse a
/// second, however many requests race.
public enum DerivedObjectId {
    /// `prefix` and 24 hex digits of the SHA-256 of `key`.
    public static func make(_ prefix: String, from key: String) -> String {
        prefix + SHA256.hash(data: Data(key.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
