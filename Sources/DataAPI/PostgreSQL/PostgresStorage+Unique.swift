internal import PostgresNIO
import Synchronization

extension PostgresStorage {
    /// Creates the unique indexes (`UniqueFields`) that a class's table lacks: a database made
    /// before they existed gets them at the next start of a host. Each in its own transaction,
    /// under the schema's advisory lock (hosts starting together take turns). A table that
    /// already holds one value twice can't get its index; the host still starts (its data stays
    /// readable, and the service's check before each write still refuses new duplicates one at a
    /// time), and the log says which field to clean up, at every start until it is.
    func ensureUniqueIndexes() async {
        for field in UniqueFields.all {
            guard let table = catalog.withLock({ $0[field.className]?.table }) else { continue }
            do {
                try await transaction { connection in
                    // Not a request's statement: an index over a large `_User` takes its time, and
                    // hosts starting together queue on the lock (as `migrate` does).
                    try await connection.run(SQL("SET LOCAL statement_timeout = 0"))
                    try await connection.run(SQL("SELECT pg_advisory_xact_lock(727462)"))
                    try await connection.run(SQL(PostgresSchema.createUniqueIndex(field, table: table)))
                }
            } catch {
                logger.error("\(field.indexRefused(error))")
            }
        }
    }
}
