#!/usr/bin/env python3
"""Crash safety: writes under load, `kill -9` at a random moment, restart, check.

Usage: crash.py FUNCTIONHOST [--rounds N] [--seconds S] [--database URL] [--seed N]

Each round starts the server on the same data directory, runs writers that create objects,
update objects and increment shared counters, kills the server with SIGKILL at a random moment
while they run, starts it again and checks, for every write the server acknowledged:
  - every created object is there, whole (its three fields agree with each other);
  - every updated object holds the last acknowledged value or one sent after it;
  - every counter is at least the increments acknowledged and at most those plus the ones still
    in flight when the server died.
Search is on for CrashItem (field a) and CrashUpdate (field label), so the index is written in
the same transactions; each check also asks that it agrees with the data:
  - a search for each object's own word (the last created, and a sample of the others) finds it,
    and `*` hits as many objects as the class holds;
  - on PostgreSQL (--database), directly: no object without its search row, no row without its
    object, and every row holds its object's current word.
Exits 1 on the first acknowledged write that is missing or wrong.
"""
import argparse
import http.client
import json
import os
import re
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

APP = {"X-LC-Id": "crashapp", "X-LC-Key": "crashmaster,master", "Content-Type": "application/json"}
COUNTERS = 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, data, port, database, functions=None, extra=()):
        self.binary, self.data, self.port, self.database = binary, data, port, database
        # No cloud code unless a folder of it is given; `extra`: more `serve` options.
        self.functions, self.extra = functions or data + "/no-functions", list(extra)
        self.process = None

    def start(self):
        env = dict(os.environ, LEANCLOUD_APP_ID="crashapp", LEANCLOUD_APP_KEY="crashkey",
                   LEANCLOUD_APP_MASTER_KEY="crashmaster", LEANCLOUD_APP_HOOK_KEY="crashhook", LOG_LEVEL="error")
        args = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data,
                "--functions", self.functions] + self.extra
        if self.database:
            args += ["--database", self.database]
        self.process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Ready when the health check answers (it answers once storage is open).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit("the server exited at start")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/__engine/1/ping")
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        sys.exit("the server did not become ready")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def call(conn, method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=APP)
    response = conn.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data else None


class Ledger:
    """What the server acknowledged, and what was in flight when it died."""

    def __init__(self):
        self.lock = threading.Lock()
        self.created = {}          # objectId -> token
        self.updates = {}          # objectId -> list of (value, acknowledged)
        self.increments = [0] * COUNTERS
        self.pending_increments = [0] * COUNTERS
        self.acknowledged = 0
        self.unacknowledged = 0


def writer(port, ledger, counter_ids, own_update, stop, rng):
    # Each writer updates an object of its own: its updates are then ordered, and "the last
    # acknowledged value or a later one" is well defined.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while not stop.is_set():
        kind = rng.random()
        try:
            if kind < 0.4:
                token = "%016x" % rng.getrandbits(64)
                status, body = call(conn, "POST", "/1.1/classes/CrashItem", {"a": token, "b": token, "c": [token, token]})
                if status == 201:
                    with ledger.lock:
                        ledger.created[body["objectId"]] = token
                        ledger.acknowledged += 1
            elif kind < 0.7:
                target = own_update
                value = rng.getrandbits(31)
                with ledger.lock:
                    ledger.updates[target].append([value, False])
                    entry = ledger.updates[target][-1]
                status, _ = call(conn, "PUT", "/1.1/classes/CrashUpdate/" + target, {"value": value, "label": "v%d" % value})
                if status == 200:
                    with ledger.lock:
                        entry[1] = True
                        ledger.acknowledged += 1
            else:
                index = rng.randrange(COUNTERS)
                with ledger.lock:
                    ledger.pending_increments[index] += 1
                status, _ = call(conn, "PUT", "/1.1/classes/CrashCounter/" + counter_ids[index],
                                 {"n": {"__op": "Increment", "amount": 1}})
                with ledger.lock:
                    ledger.pending_increments[index] -= 1
                    if status == 200:
                        ledger.increments[index] += 1
                        ledger.acknowledged += 1
                    else:
                        # Sent, not acknowledged: it may or may not have been applied.
                        ledger.pending_increments[index] += 1
        except (OSError, http.client.HTTPException, ValueError):
            with ledger.lock:
                ledger.unacknowledged += 1
            # The server is gone; what was in flight stays counted as pending.
            if kind >= 0.7:
                pass
            return


def fetch_all(port, class_name):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    objects, cursor = {}, None
    while True:
        path = "/1.1/scan/classes/%s?limit=1000" % class_name + ("&cursor=" + cursor if cursor else "")
        status, body = call(conn, "GET", path)
        if status == 404:
            return objects
        assert status == 200, (status, body)
        for o in body["results"]:
            objects[o["objectId"]] = o
        cursor = body.get("cursor")
        if not cursor:
            return objects


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="longest a round's load runs before the kill")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--database")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    options = parser.parse_args()
    rng = random.Random(options.seed)
    data = tempfile.mkdtemp(prefix="functionhost-crash-")
    port = free_port()
    server = Server(options.binary, data, port, options.database)
    ledger = Ledger()
    try:
        server.start()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        counter_ids = [call(conn, "POST", "/1.1/classes/CrashCounter", {"n": 0})[1]["objectId"] for _ in range(COUNTERS)]
        update_ids = [call(conn, "POST", "/1.1/classes/CrashUpdate", {"value": -1})[1]["objectId"]
                      for _ in range(options.writers)]
        for target in update_ids:
            ledger.updates[target] = [[-1, True]]
        status, body = call(conn, "POST", "/1.1/classes/CrashItem", {"a": "0" * 16, "b": "0" * 16, "c": ["0" * 16] * 2})
        ledger.created[body["objectId"]] = "0" * 16
        for class_name, field in [("CrashItem", "a"), ("CrashUpdate", "label")]:
            status, body = call(conn, "PUT", "/1.1/search/classes/" + class_name, {"fields": [field]})
            assert status == 200, ("turning search on", class_name, status, body)
        print("crash safety (seed %d, %d rounds, %d writers):" % (options.seed, options.rounds, options.writers))
        for round_number in range(1, options.rounds + 1):
            stop = threading.Event()
            threads = [threading.Thread(target=writer, args=(port, ledger, counter_ids, update_ids[i], stop,
                                                             random.Random(rng.getrandbits(32))))
                       for i in range(options.writers)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.3, options.seconds))
            server.kill()
            stop.set()
            for t in threads:
                t.join()
            server.start()
            failures = check(port, ledger, counter_ids, rng) + check_postgres_search(options.database)
            print("  round %d: %d writes acknowledged so far, all found; %d requests cut by the kill"
                  % (round_number, ledger.acknowledged, ledger.unacknowledged) if not failures else
                  "  round %d: FAILED: %s" % (round_number, "; ".join(failures[:5])))
            if failures:
                sys.exit(1)
        server.kill()
        print("  OK: %d acknowledged writes, %d found after %d kill -9s" % (ledger.acknowledged, ledger.acknowledged, options.rounds))
    finally:
        if server.process and server.process.poll() is None:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


def search(conn, class_name, q):
    path = "/1.1/search/select?" + urllib.parse.urlencode({"clazz": class_name, "q": q, "limit": 10})
    status, body = call(conn, "GET", path)
    assert status == 200, (path, status, body)
    return body


def check_search(port, items, updates, rng):
    """The index agrees with the data, as searches see it."""
    failures = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for class_name, objects in [("CrashItem", items), ("CrashUpdate", updates)]:
        hits = search(conn, class_name, "*")["hits"]
        if hits != len(objects):
            failures.append("search finds %d %s objects, the class holds %d" % (hits, class_name, len(objects)))
    # Quoted: a word of digits alone would be read as a number to compare with.
    newest = sorted(items.values(), key=lambda o: o["createdAt"])[-20:]
    sample = rng.sample(list(items.values()), min(30, len(items)))
    for o in newest + sample:
        found = [r["objectId"] for r in search(conn, "CrashItem", 'a:"%s"' % o["a"])["results"]]
        if found != [o["objectId"]]:
            failures.append("searching CrashItem %s for its word finds %s" % (o["objectId"], found))
    for o in updates.values():
        found = [r["objectId"] for r in search(conn, "CrashUpdate", "label:v%d" % o["value"])["results"]]
        if o["value"] >= 0 and o["objectId"] not in found:
            failures.append("searching CrashUpdate %s for its label finds %s" % (o["objectId"], found))
    return failures


def check_postgres_search(database):
    """On PostgreSQL, the search tables agree with the class tables row for row and word for word."""
    if not database:
        return []
    parts = urllib.parse.urlsplit(database)
    query = urllib.parse.parse_qs(parts.query)
    schema = query.pop("schema", ["public"])[0]
    url = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, doseq=True)))
    assert re.fullmatch(r"[a-z_][a-z0-9_]*", schema), schema
    failures = []
    for class_name, field in [("CrashItem", "a"), ("CrashUpdate", "label")]:
        table = "o_" + psql(url, "SELECT id FROM %s.fh_classes WHERE name = '%s'" % (schema, class_name))
        search_table = "%s.%s_search" % (schema, table)
        table = "%s.%s" % (schema, table)
        counts = psql(url, f"""
            SELECT (SELECT count(*) FROM {table} o WHERE NOT EXISTS (SELECT 1 FROM {search_table} s WHERE s.object_id = o.id))
                || ' ' || (SELECT count(*) FROM {search_table} s WHERE NOT EXISTS (SELECT 1 FROM {table} o WHERE o.id = s.object_id))
                || ' ' || (SELECT count(*) FROM {table} o JOIN {search_table} s ON s.object_id = o.id
                           WHERE o.doc ? '{field}' AND NOT s.tsv @@ quote_literal('{field}:' || lower(o.doc->>'{field}'))::tsquery)""")
        missing, orphans, stale = map(int, counts.split())
        if missing or orphans or stale:
            failures.append("%s's search table: %d objects without a row, %d rows without an object, %d rows stale"
                            % (class_name, missing, orphans, stale))
    return failures


def psql(url, sql):
    return subprocess.run(["psql", url, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


def check(port, ledger, counter_ids, rng):
    failures = []
    items = fetch_all(port, "CrashItem")
    for object_id, token in ledger.created.items():
        o = items.get(object_id)
        if o is None:
            failures.append("created %s is missing" % object_id)
        elif not (o.get("a") == token and o.get("b") == token and o.get("c") == [token, token]):
            failures.append("created %s is not whole: %s" % (object_id, o))
    for object_id, o in items.items():
        # Any object there, acknowledged or not, must be whole.
        if not (o.get("a") and o.get("a") == o.get("b") and o.get("c") == [o["a"], o["a"]]):
            failures.append("object %s is half written: %s" % (object_id, o))
    updates = fetch_all(port, "CrashUpdate")
    for object_id, history in ledger.updates.items():
        last_acked = max(i for i, (_, acked) in enumerate(history) if acked)
        allowed = [value for value, _ in history[last_acked:]]
        value = updates.get(object_id, {}).get("value")
        if value not in allowed:
            failures.append("updated %s holds %r, expected one of %r" % (object_id, value, allowed[:5]))
        # What is stored now is the last value: later checks accept only it or what follows.
        history[:] = [[value, True]]
    failures += check_search(port, items, updates, rng)
    counters = fetch_all(port, "CrashCounter")
    for index, object_id in enumerate(counter_ids):
        n = counters.get(object_id, {}).get("n")
        low, high = ledger.increments[index], ledger.increments[index] + ledger.pending_increments[index]
        if n is None or not (low <= n <= high):
            failures.append("counter %d is %r, acknowledged %d, in flight %d" % (index, n, low, high - low))
        # Settle what was in flight: the stored value is now the truth.
        ledger.increments[index] = n if n is not None else low
        ledger.pending_increments[index] = 0
    return failures


if __name__ == "__main__":
    main()
