import Synchronization

/// Where class settings live: one object per class in the internal class `_ClassSettings`
/// (its id is the class name, its field `settings` the JSON form as text), so every engine keeps
/// them and every host sharing the database applies them.
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
        /// Nil when the class has none stored: remembered too, so an open class costs no read
        /// per request either.
        var settings: ClassSettings?
        var readAt: Double
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The settings stored for a class, nil when none are (read again after `lifetime`).
    func stored(_ className: String, in storage: any StorageEngine) async throws -> ClassSettings? {
        let now = Double(ObjectID.currentMilliseconds()) / 1000
        if let entry = entries.withLock({ $0[className] }), now - entry.readAt < Self.lifetime {
            return entry.settings
        }
        var settings: ClassSettings? = nil
        if let object = try await storage.fetch(Self.className, id: className), let text = object.fields["settings"]?.stringValue {
            settings = try ClassSettings().merging(try JSONValue(parsing: text))
        }
        let read = settings
        entries.withLock { $0[className] = Entry(settings: read, readAt: now) }
        return settings
    }

    /// Stores a class's settings, replacing what it had.
    func store(_ settings: ClassSettings, for className: String, in storage: any StorageEngine) async throws {
        let changes = ObjectChanges(fields: ["settings": .set(.string(settings.json.jsonString))])
        if try await storage.fetch(Self.className, id: className) != nil {
            _ = try await storage.update(Self.className, id: className, changes: changes, condition: nil)
        } else {
            var creation = changes
            creation.objectId = className
            _ = try await storage.create(Self.className, changes: creation)
        }
        let now = Double(ObjectID.currentMilliseconds()) / 1000
        entries.withLock { $0[className] = Entry(settings: settings, readAt: now) }
    }
}
