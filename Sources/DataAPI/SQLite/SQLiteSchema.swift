internal import GRDB

/// The tables of the SQLite engine.
///
/// `classes` maps each class name to its own table (`o_<id>`): SQLite table names are
/// case-insensitive while class names are not, and a table per class keeps each class's rows,
/// indexes and scan order apart. `fields` records each field's type; `relations` holds the
/// members of Relation fields.
enum SQLiteSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE classes (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        created_at TEXT NOT NULL
                    );
                    CREATE TABLE fields (
                        class TEXT NOT NULL,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        PRIMARY KEY (class, name)
                    ) WITHOUT ROWID;
                    CREATE TABLE relations (
                        owner_class TEXT NOT NULL,
                        field TEXT NOT NULL,
                        owner_id TEXT NOT NULL,
                        target_id TEXT NOT NULL,
                        PRIMARY KEY (owner_class, field, owner_id, target_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX relations_by_target ON relations (owner_class, field, target_id);
                    """)
        }
        // Full-text search: the classes it is on for and their fields (a JSON array); each
        // such class has an FTS5 table of its own (`SQLiteSearchIndex`).
        migrator.registerMigration("v2-search") { db in
            try db.execute(sql: "CREATE TABLE search_classes (class TEXT PRIMARY KEY, fields TEXT NOT NULL) WITHOUT ROWID")
        }
        return migrator
    }

    /// The statements that create the table of a new class.
    static func createClassTable(_ table: String) -> String {
        """
        CREATE TABLE "\(table)" (
            id TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX "\(table)_created" ON "\(table)" (created_at);
        CREATE INDEX "\(table)_updated" ON "\(table)" (updated_at);
        """
    }

    /// The statement that creates the unique index of a field (`UniqueFields`) on a class's
    /// table: over its non-empty text values, which SQLite compares as bytes.
    static func createUniqueIndex(_ field: UniqueFields.Field, table: String) -> String {
        let path = SQLiteQueryCompiler.path(field.name)
        return """
            CREATE UNIQUE INDEX IF NOT EXISTS "\(field.indexName(table: table))" ON "\(table)" (json_extract(doc, \(path)))
            WHERE json_type(doc, \(path)) = 'text' AND json_extract(doc, \(path)) <> ''
            """
    }
}
