import DataAPI
import Foundation

/// The application's credentials: the id clients send, the client key, the master key and the
/// key that authenticates hook calls.
public struct AppKeys: Sendable, Hashable, Codable {
    /// `X-LC-Id`.
    public var appId: String
    /// The client key (`X-LC-Key: <appKey>`).
    public var appKey: String
    /// The master key (`X-LC-Key: <masterKey>,master`).
    public var masterKey: String
    /// The hook key (`X-LC-Hook-Key`).
    public var hookKey: String

    /// Creates keys.
    public init(appId: String, appKey: String, masterKey: String, hookKey: String) {
        self.appId = appId
        self.appKey = appKey
        self.masterKey = masterKey
        self.hookKey = hookKey
    }

    /// New random keys.
    public static func generate() -> AppKeys {
        AppKeys(
            appId: ObjectID.randomHex(byteCount: 12), appKey: ObjectID.randomHex(byteCount: 12),
            masterKey: ObjectID.randomHex(byteCount: 16), hookKey: ObjectID.randomHex(byteCount: 16))
    }

    /// The keys for a data directory: each given key wins; the others are read from
    /// `keys.json` in the directory, or generated once and written there.
    ///
    /// - Returns: the keys and whether any were generated now.
    public static func resolve(
        dataDirectory: String, appId: String?, appKey: String?, masterKey: String?, hookKey: String?
    ) throws -> (keys: AppKeys, generated: Bool) {
        // The master key is the operator's alone: 0600 in a 0700 directory, narrowed if older
        // versions left the file readable by every local account.
        try DataDirectory.prepare(dataDirectory)
        let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent("keys.json")
        try DataDirectory.restrict(url.path)
        var stored: AppKeys?
        if let data = try? Data(contentsOf: url) {
            stored = try JSONDecoder().decode(AppKeys.self, from: data)
        }
        let fresh = stored ?? generate()
        let keys = AppKeys(
            appId: appId ?? fresh.appId, appKey: appKey ?? fresh.appKey, masterKey: masterKey ?? fresh.masterKey,
            hookKey: hookKey ?? fresh.hookKey)
        if stored == nil {
            // Written atomically so a crash never leaves a half file that would lock clients out.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(fresh).write(to: url, options: .atomic)
            try DataDirectory.restrict(url.path)
        }
        return (keys, stored == nil)
    }
}
