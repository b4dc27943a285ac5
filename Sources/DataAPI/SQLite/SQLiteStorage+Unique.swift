internal import GRDB
import Logging
import Synchronization

extension SQLiteStorage {
    /// Creates the unique indexes (`UniqueFields`) that a class's table lacks: a database made
    /// before they existed gets them at its next start. A table that already holds one value
    /// twice can't get its index; the host still starts (its data stays readable, and the
    /// service's check before each write still refuses new duplicates one at a time), and the
    /// log says which field to clean up, at every start until it is.
    func ensureUniqueIndexes(logger: Logger) {
        for field in UniqueFields.all {
            guard let table = catalog.withLock({ $0[field.className]?.table }) else { continue }
            do {
                try pool.write { db in try db.execute(sql: SQLiteSchema.createUniqueIndex(field, table: table)) }
            } catch {
                logger.error("\(field.indexRefused(error))")
            }
        }
    }
}
