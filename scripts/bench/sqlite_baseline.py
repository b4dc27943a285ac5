"""The storage ceiling: a plain in-process SQLite insert loop, one row per transaction, WAL and
synchronous=NORMAL as the server uses, the same document size. Prints inserts per second."""
import json, os, sqlite3, sys, tempfile, time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
path = os.path.join(tempfile.mkdtemp(), "baseline.sqlite")
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE o (id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL)")
doc = json.dumps({"title": "benchmark object", "priority": 3, "done": False, "tags": ["a", "b"], "owner": "someone"})
count = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    db.execute("BEGIN")
    db.execute("INSERT INTO o VALUES (?, ?, ?, ?)", (os.urandom(12).hex(), "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", doc))
    db.execute("COMMIT")
    count += 1
print(f"{count / (time.perf_counter() - start):.0f}")
