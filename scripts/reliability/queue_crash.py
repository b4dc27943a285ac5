#!/usr/bin/env python3
"""The Cloud Queue across a crash: a host killed with SIGKILL mid-task leaves the task to
another host, or to itself once restarted, and no task ever has two attempts running at once.

Usage: queue_crash.py FUNCTIONHOST [--tasks N] [--database URL]

The cloud function `slowStep` records each attempt in the class QueueRun (its task key and the
moment it starts), waits a little over a second, and records its end. The script enqueues N
tasks (attempts 3, a time limit of 3 s) on host A, waits until an attempt is under way, kills A
with SIGKILL, and then:
  - on SQLite: starts A again on the same data directory;
  - on PostgreSQL (--database): host B, started beside A on the same database before the kill
    and claiming tasks from the same queue all along, takes A's (A stays dead).
It then waits for every task to end and checks:
  - every task succeeded, and one of its attempts ran to its end;
  - an attempt cut off by the kill (started, never ended) was followed by one that ended;
  - no two attempts of one task overlap in time (an attempt cut off by the kill ends at the kill).
Exits 1 on the first failure.
"""
import argparse
import http.client
import os
import shutil
import sys
import tempfile
import time

from crash import Server, call, free_port

CLOUD_JS = """
AV.Cloud.define('slowStep', async function (request) {
  var key = request.params.key;
  var run = await new AV.Object('QueueRun').save({ key: key, start: Date.now() }, { useMasterKey: true });
  await new Promise(function (resolve) { setTimeout(resolve, 1200); });
  await run.save({ end: Date.now() }, { useMasterKey: true });
  return key;
});
"""


class Host(Server):
    """A host of the queue running the cloud code below. A lost attempt's lease ends its time
    limit (3 s here) plus the host's lease grace (30 s by default) after it started: then
    another host (or the restarted one) takes the task back."""

    def __init__(self, binary, data, functions, database):
        super().__init__(binary, data, free_port(), database, functions=functions)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()

    def call(self, method, path, body=None):
        return call(http.client.HTTPConnection("127.0.0.1", self.port, timeout=30), method, path, body)


def runs(server):
    status, body = server.call("GET", "/1.1/classes/QueueRun?limit=1000&order=start")
    if status == 404:  # no attempt has started yet: the class doesn't exist
        return []
    if status != 200:
        sys.exit(f"listing the runs failed: {status} {body}")
    return body["results"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--database")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="functionhost-queue-crash-")
    functions = os.path.join(work, "functions")
    os.makedirs(functions)
    with open(os.path.join(functions, "cloud.js"), "w") as f:
        f.write(CLOUD_JS)
    first = Host(args.binary, os.path.join(work, "a"), functions, args.database)
    second = None
    try:
        first.start()
        if args.database:
            # Two hosts claim from one queue: each runs at most 2 tasks at once (the default).
            second = Host(args.binary, os.path.join(work, "b"), functions, args.database)
            second.start()
        keys = [f"task-{i}" for i in range(args.tasks)]
        for key in keys:
            status, body = first.call("POST", "/1.1/engine/cloud-queue/tasks", {
                "function": "slowStep", "params": {"key": key}, "uniqueId": key, "attempts": 3, "backoff": 0,
                "timeout": 3000})
            if status != 200:
                fail(f"enqueue {key}: {status} {body}")
        # Kill once an attempt is under way (started, not ended); with two hosts, once more are
        # than host B alone runs at once, so one of them is A's.
        wanted = 3 if second else 1
        deadline = time.monotonic() + 60
        while True:
            if time.monotonic() > deadline:
                fail(f"not {wanted} attempts under way at once within 60 s")
            under_way = [r for r in runs(first) if "end" not in r]
            if len(under_way) >= wanted:
                break
            time.sleep(0.02)
        first.kill()
        killed_at = time.time() * 1000
        print(f"killed host A with {len(under_way)} attempt(s) under way: {sorted(r['key'] for r in under_way)}")
        if second:
            survivor = second
        else:
            first.start()
            survivor = first
        deadline = time.monotonic() + 120
        while True:
            statuses = {}
            for key in keys:
                status, body = survivor.call("GET", f"/1.1/engine/cloud-queue/tasks/{key}")
                statuses[key] = body.get("status") if status == 200 else f"HTTP {status}"
            if all(s in ("success", "failed") for s in statuses.values()):
                break
            if time.monotonic() > deadline:
                fail(f"tasks not finished 120 s after the kill: {statuses}")
            time.sleep(0.2)
        if any(s != "success" for s in statuses.values()):
            fail(f"not every task succeeded: {statuses}")
        by_key = {}
        for r in runs(survivor):
            by_key.setdefault(r["key"], []).append(r)
        for key in keys:
            attempts = sorted(by_key.get(key, []), key=lambda r: r["start"])
            if not any("end" in r for r in attempts):
                fail(f"{key}: no attempt ran to its end: {attempts}")
            # An attempt that never ended was cut off by the kill: a later one ran the task.
            for r in attempts:
                if "end" not in r and not any(o["start"] > r["start"] and "end" in o for o in attempts):
                    fail(f"{key} was cut off by the kill and never run again: {attempts}")
            for earlier, later in zip(attempts, attempts[1:]):
                # An attempt the kill cut off ended at the kill.
                end = earlier.get("end", killed_at)
                if later["start"] < end:
                    fail(f"{key}: two attempts at once: {earlier} and {later}")
        print(f"ok: {len(keys)} tasks succeeded, {sum(len(v) for v in by_key.values())} attempts, none overlapping")
    finally:
        first.stop()
        if second:
            second.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
