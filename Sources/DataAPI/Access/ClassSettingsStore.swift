import JSON
import Synchronization

/// Where class settings live: one object per class in the internal class `_ClassSettings`
/// (its id is the class name, its field `settings` the JSON text of what was set), so every
/// engine keeps them and every host sharing the database applies them.
///
/// What is stored is what operators set, not the result: every action and flag ever given,
/// laid over the defaults when read. So a default nobody touched keeps following the
/// configuration (`--open-user-queries` still opens `_User` find after a field flag was set), and
/// a default turned off (`"user_private": false` on `email`) stays off.
///
/// Each host keeps what it read for a second: a request touching several classes reads each
/// class's settings once a second at most, and a change made on another host applies there
/// within a second. A change made through this host applies at once.
final class ClassSettingsStore: Sendable {
    /// The internal class the settings are stored in.
    static let className = "_ClassSettings"
    /// How long a read is trusted before it is read again.
    static let lifetime: Double = 1

    private struct Entry {
        /// What was set (`{"permissions": {...}, "schema": {field: {flag: Bool}}}`), empty when nothing.
        var document: JSONValue
        /// The settings in force: `document` over the defaults.
        var settings: ClassSettings
        var readAt: Double
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The settings in force for a class: what was set over `defaults` (read again after `lifetime`).
    func settings(_ className: String, defaults: ClassSettings, in storage: any StorageEngine) async throws -> ClassSettings {
        try await entry(className, defaults: defaults, in: storage).settings
    }

    /// Lays `changes` over what was set for a class and stores the result; returns the settings
    /// now in force.
    ///
    /// - Throws: 107 when the changes are malformed (nothing is stored).
    func update(
        _ className: String, with changes: JSONValue, defaults: ClassSettings, in storage: any StorageEngine
    ) async throws -> ClassSettings {
        let current = try await entry(className, defaults: defaults, in: storage, fresh: true)
        // Checked (and only the keys that mean something kept) before anything is written.
        _ = try current.settings.merging(changes)
        let document = Self.combining(current.document, with: changes)
        let settings = try defaults.merging(document)
        let written = ObjectChanges(fields: ["settings": .set(.string(document.jsonString))])
        if try await storage.fetch(Self.className, id: className) != nil {
            _ = try await storage.update(Self.className, id: className, changes: written, condition: nil)
        } else {
            var creation = written
            creation.objectId = className
            _ = try await storage.create(Self.className, changes: creation)
        }
        let now = Double(ObjectID.currentMilliseconds()) / 1000
        entries.withLock { $0[className] = Entry(document: document, settings: settings, readAt: now) }
        return settings
    }

    private func entry(
        _ className: String, defaults: ClassSettings, in storage: any StorageEngine, fresh: Bool = false
    ) async throws -> Entry {
        let now = Double(ObjectID.currentMilliseconds()) / 1000
        if !fresh, let entry = entries.withLock({ $0[className] }), now - entry.readAt < Self.lifetime {
            return entry
        }
        var document: JSONValue = [:]
        if let object = try await storage.fetch(Self.className, id: className), let text = object.fields["settings"]?.stringValue {
            document = try JSONValue.parsed(Array(text.utf8))
        }
        let entry = Entry(document: document, settings: try defaults.merging(document), readAt: now)
        entries.withLock { $0[className] = entry }
        return entry
    }

    /// `changes` laid over `document`: an action given replaces that action, a flag given
    /// replaces that flag of its field; other keys (a descriptor's `type`, an export's
    /// `indexes`) are left out.
    static func combining(_ document: JSONValue, with changes: JSONValue) -> JSONValue {
        var permissions = document["permissions"]?.objectValue ?? [:]
        for (action, rule) in changes["permissions"]?.objectValue ?? [:] { permissions[action] = rule }
        var schema = document["schema"]?.objectValue ?? [:]
        for (field, descriptor) in changes["schema"]?.objectValue ?? [:] {
            var flags = schema[field]?.objectValue ?? [:]
            for key in ["hidden", "read_only", "user_private"] {
                if let flag = descriptor[key], flag != .null { flags[key] = flag }
            }
            if !flags.isEmpty { schema[field] = .object(flags) }
        }
        return ["permissions": .object(permissions), "schema": .object(schema)]
    }
}
