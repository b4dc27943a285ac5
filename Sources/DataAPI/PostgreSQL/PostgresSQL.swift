internal import NIOCore
internal import PostgresNIO

/// A statement with `?` placeholders and the text values bound to them, in order.
///
/// Every value is bound as text and cast in the SQL where it needs a type (`?::jsonb`,
/// `?::float8`): one binding type keeps the compiler simple, and PostgreSQL parses the text once
/// per statement. Placeholders are numbered (`$1`, `$2`, ...) only when the statement is sent, so
/// fragments compose freely; no literal the compiler writes contains a `?` (key paths are
/// letters, digits, `_` and dots).
struct SQL: Sendable {
    /// The statement, with `?` for each bound value.
    var text: String
    /// The values, `nil` for NULL.
    var binds: [String?]

    init(_ text: String, _ binds: [String?] = []) {
        self.text = text
        self.binds = binds
    }

    /// The statement as postgres-nio sends it.
    var query: PostgresQuery {
        var numbered = ""
        numbered.reserveCapacity(text.utf8.count + binds.count * 2)
        var index = 0
        for character in text {
            if character == "?" {
                index += 1
                numbered += "$\(index)"
            } else {
                numbered.append(character)
            }
        }
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }
}

extension PostgresRowSequence {
    /// Every row, each column as text (the statements select text columns or cast to text).
    func texts() async throws -> [[String]] {
        var result: [[String]] = []
        for try await row in self { result.append(row.texts) }
        return result
    }
}

extension PostgresRow {
    /// Each column as text (a NULL as "").
    var texts: [String] { map { cell in cell.bytes.map { String(buffer: $0) } ?? "" } }
}

extension PostgresConnection {
    /// Runs a statement and returns its rows as text.
    func rows(_ sql: SQL) async throws -> [[String]] {
        try await query(sql.query, logger: PostgresStorage.quiet).texts()
    }

    /// Runs a statement whose rows are not needed.
    func run(_ sql: SQL) async throws {
        _ = try await rows(sql)
    }
}
