/// An index of a class's table, as `functionhost indexes list` shows it.
package struct ClassIndex: Sendable, Hashable {
    /// The class.
    public var className: String
    /// The name to give `functionhost indexes drop`: the database's name without the table's.
    public var name: String
    /// Whether the host created it for queries (and may drop it), rather than the schema.
    public var automatic: Bool
    /// What it indexes, as the database describes it.
    public var definition: String

    /// Whether an index of `table` is one the host creates for queries (`ix_<field>`, or `gin` on
    /// PostgreSQL), rather than one the schema makes (on `created_at`, `updated_at`, the id).
    static func isAutomatic(_ name: String, table: String) -> Bool {
        name.hasPrefix("\(table)_ix_") || name == "\(table)_gin"
    }

    /// The name an operator uses for an index of `table`: the database's, without the table's
    /// name in front.
    static func shortName(_ full: String, table: String) -> String {
        full.hasPrefix(table + "_") ? String(full.dropFirst(table.count + 1)) : full
    }

    /// What a `CREATE INDEX` statement indexes: its text after `ON <table>` (which PostgreSQL
    /// writes with the schema in front). Names of tables and indexes hold no spaces.
    static func definition(_ statement: String) -> String {
        guard let on = statement.firstRange(of: " ON ") else { return statement }
        let rest = statement[on.upperBound...]
        guard let space = rest.firstIndex(of: " ") else { return String(rest) }
        return String(rest[rest.index(after: space)...])
    }

    /// What dropping an index that isn't an automatic one answers.
    static func notDroppable(_ name: String) -> DataAPIError {
        DataAPIError(
            .invalidQuery,
            "The class has no automatic index named \(name): `functionhost indexes list` shows them (the schema's own can't be dropped).")
    }

    /// What naming a class that doesn't exist answers.
    static let noSuchClass = DataAPIError(.objectNotFound, "Class or object doesn't exists.")

    /// Creates a description.
    public init(className: String, name: String, automatic: Bool, definition: String) {
        self.className = className
        self.name = name
        self.automatic = automatic
        self.definition = definition
    }
}

/// The operator's view of the indexes of an engine: what `functionhost indexes` works through.
package protocol IndexAdministration: Sendable {
    /// The indexes of a class, or of every class when `className` is nil, by class then name.
    func indexes(of className: String?) async throws -> [ClassIndex]

    /// Drops an automatic index of a class, by the name `indexes(of:)` gives.
    ///
    /// - Throws: 101 when the class doesn't exist; 107 (invalid query) when it has no automatic
    ///   index of that name (the schema's own are never dropped).
    func dropIndex(_ className: String, name: String) async throws
}
