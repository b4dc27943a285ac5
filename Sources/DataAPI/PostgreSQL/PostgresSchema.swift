/// The tables and SQL functions of the PostgreSQL engine, created at start if missing.
///
/// The layout mirrors SQLite's: `fh_classes` maps each class name to its own table (`o_<id>`),
/// `fh_fields` records each field's type, `fh_relations` holds Relation members. Documents are
/// JSONB; `seq` keeps insertion order, which breaks ties in every sort as SQLite's rowid does.
/// Text columns use the "C" collation so that ids and dates sort by bytes, as they do in SQLite,
/// whatever the database's own locale.
enum PostgresSchema {
    /// Statements run at start, each idempotent: several hosts may start at once.
    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS fh_classes (
            id BIGSERIAL PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS fh_fields (
            class TEXT COLLATE "C" NOT NULL,
            name TEXT COLLATE "C" NOT NULL,
            type TEXT NOT NULL,
            PRIMARY KEY (class, name)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS fh_relations (
            owner_class TEXT COLLATE "C" NOT NULL,
            field TEXT COLLATE "C" NOT NULL,
            owner_id TEXT COLLATE "C" NOT NULL,
            target_id TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (owner_class, field, owner_id, target_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS fh_relations_by_target ON fh_relations (owner_class, field, target_id)",
        // The classes full-text search is on for and their indexed fields (a JSON array); a
        // class listed here has a search table (`searchTable`), and only then.
        """
        CREATE TABLE IF NOT EXISTS fh_search (
            class TEXT COLLATE "C" PRIMARY KEY,
            fields JSONB NOT NULL
        )
        """,
        // A number out of a JSONB value, NULL for anything else: a bare cast would fail the whole
        // query on the first document whose field holds text.
        """
        CREATE OR REPLACE FUNCTION fh_number(value jsonb) RETURNS float8
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
        $$ SELECT CASE WHEN jsonb_typeof(value) = 'number' THEN value::text::float8 END $$
        """,
        // Great-circle distance in radians (the formula GeoPoint.distance uses).
        """
        CREATE OR REPLACE FUNCTION fh_distance(lat1 float8, lng1 float8, lat2 float8, lng2 float8) RETURNS float8
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
        $$ SELECT 2 * atan2(sqrt(a), sqrt(1 - a)) FROM (SELECT
            power(sin(radians(lat2 - lat1) / 2), 2)
            + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lng2 - lng1) / 2), 2) AS a) AS h $$
        """,
        // Ray casting over [lat1, lng1, lat2, lng2, ...] (the rule GeoPoint.isInside uses).
        """
        CREATE OR REPLACE FUNCTION fh_in_polygon(lat float8, lng float8, vertices float8[]) RETURNS boolean
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE
            n int := array_length(vertices, 1) / 2;
            inside boolean := false;
            j int;
        BEGIN
            IF lat IS NULL OR lng IS NULL OR n IS NULL OR n < 3 THEN RETURN false; END IF;
            j := n;
            FOR i IN 1..n LOOP
                IF (vertices[2 * i] > lng) <> (vertices[2 * j] > lng) AND lat < (vertices[2 * j - 1] - vertices[2 * i - 1])
                    * (lng - vertices[2 * i]) / (vertices[2 * j] - vertices[2 * i]) + vertices[2 * i - 1] THEN
                    inside := NOT inside;
                END IF;
                j := i;
            END LOOP;
            RETURN inside;
        END $$
        """,
    ]

    /// The statements that create the table of a new class.
    static func createClassTable(_ table: String) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS "\(table)" (
                seq BIGSERIAL PRIMARY KEY,
                id TEXT COLLATE "C" NOT NULL UNIQUE,
                created_at TEXT COLLATE "C" NOT NULL,
                updated_at TEXT COLLATE "C" NOT NULL,
                doc JSONB NOT NULL
            )
            """,
            "CREATE INDEX IF NOT EXISTS \"\(table)_created\" ON \"\(table)\" (created_at)",
            "CREATE INDEX IF NOT EXISTS \"\(table)_updated\" ON \"\(table)\" (updated_at)",
        ]
    }

    /// The search table of a class table: each object's `tsvector` (`PostgresSearchText`).
    static func searchTable(_ table: String) -> String { table + "_search" }

    /// The statement that creates a class's search table, empty and without its key's
    /// reference or its GIN index (`finishSearchTable`): a build fills it first, which is
    /// faster than checking and indexing row by row.
    static func createSearchTable(_ table: String) -> String {
        """
        CREATE TABLE "\(searchTable(table))" (
            object_id TEXT COLLATE "C" PRIMARY KEY,
            tsv TSVECTOR NOT NULL
        )
        """
    }

    /// The statements that finish a filled search table: its rows reference the class's, so a
    /// deleted object's row goes with it in the same transaction, on every delete path; and
    /// the GIN index that answers `tsv @@ query`.
    static func finishSearchTable(_ table: String) -> [String] {
        let search = searchTable(table)
        return [
            """
            ALTER TABLE "\(search)" ADD CONSTRAINT "\(search)_object" FOREIGN KEY (object_id)
            REFERENCES "\(table)" (id) ON DELETE CASCADE
            """,
            "CREATE INDEX \"\(search)_tsv\" ON \"\(search)\" USING gin (tsv)",
        ]
    }

    /// The statement that creates the unique index of a field (`UniqueFields`) on a class's
    /// table: over its non-empty text values, in the "C" collation (bytes).
    static func createUniqueIndex(_ field: UniqueFields.Field, table: String) -> String {
        let text = PostgresQueryCompiler.text(field.name)
        return """
            CREATE UNIQUE INDEX IF NOT EXISTS "\(field.indexName(table: table))" ON "\(table)" ((\(text)))
            WHERE jsonb_typeof(\(PostgresQueryCompiler.json(field.name))) = 'string' AND \(text) <> ''
            """
    }
}
