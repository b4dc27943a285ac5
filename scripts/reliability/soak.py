#!/usr/bin/env python3
"""Hostile scripts under load, then a sustained mixed load: the host keeps answering.

Usage: soak.py FUNCTIONHOST [--seconds S] [--database URL]

1. Baseline: a mixed load (health check, a Swift function, a JavaScript function, creates,
   queries) from several clients; latencies recorded.
2. Hostile: the same load while other clients keep calling scripts that loop for ever, recurse
   without end and allocate without end (each stopped by the sandbox; 8 callers of the looping
   and allocating ones), with every CPU kept busy by `stress-ng --cpu N`: one function burning
   its limit must not starve the others. Every normal request must still succeed, each in at
   most 5 s (a loaded machine meets it; before the workers were shared fairly, every call of a
   trivial function timed out after 15 s); latencies are printed beside the baseline's, with
   how many trivial-function calls answered within a second.
3. Soak: the mixed load for S seconds; the server's resident memory and open files after a
   warm-up and at the end are printed, and must not have grown past a bound (memory +50%,
   files +16).
Exits 1 when a normal request fails or a bound is passed. Needs stress-ng
(`bash scripts/setup.sh stress-ng`).
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HEADERS = {"X-LC-Id": "soakapp", "X-LC-Key": "soakkey", "Content-Type": "application/json"}
HOSTILE = """
AV.Cloud.define('ok', function () { return 'ok'; });
AV.Cloud.define('spin', function () { while (true) {} });
AV.Cloud.define('recurse', function () { function f(n) { return f(n + 1) + 1; } return f(0); });
AV.Cloud.define('hog', function () { var keep = []; while (true) { keep.push(new Array(100000).fill(keep.length)); } });
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn, method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=HEADERS)
    response = conn.getresponse()
    response.read()
    return response.status


# A normal request under hostile load must answer within this many seconds.
BOUND = 5.0

NORMAL = [
    ("GET", "/__engine/1/ping", None, 200),
    ("POST", "/1.1/functions/swiftHello", {}, 200),
    ("POST", "/1.1/functions/ok", {}, 200),
    ("POST", "/1.1/classes/SoakItem", {"n": 1, "title": "soak"}, 201),
    ("GET", "/1.1/classes/SoakItem?limit=10&where=%7B%22n%22%3A1%7D", None, 200),
]


class Load:
    def __init__(self, port, clients, kinds, bound=None):
        self.port, self.clients, self.kinds, self.bound = port, clients, kinds, bound
        self.latencies = {path: [] for _, path, _, _ in kinds}
        self.failures = []
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def run_for(self, seconds):
        threads = [threading.Thread(target=self.client, args=(i,)) for i in range(self.clients)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        self.stop.set()
        for t in threads:
            t.join()

    def client(self, index):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        i = index
        while not self.stop.is_set():
            method, path, body, expected = self.kinds[i % len(self.kinds)]
            i += 1
            start = time.monotonic()
            try:
                status = request(conn, method, path, body)
            except (OSError, http.client.HTTPException) as error:
                status = repr(error)
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            elapsed = time.monotonic() - start
            with self.lock:
                if status != expected:
                    self.failures.append("%s %s -> %s" % (method, path, status))
                elif self.bound is not None and elapsed > self.bound:
                    self.failures.append("%s %s took %.1f s" % (method, path, elapsed))
                else:
                    self.latencies[path].append(elapsed)


def hostile_caller(port, stop, name, counts):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while not stop.is_set():
        try:
            status = request(conn, "POST", "/1.1/functions/" + name, {})
            counts[name] = counts.get(name, 0) + 1
            assert status >= 400, (name, status)
        except (OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def summary(load):
    parts = []
    for path, values in load.latencies.items():
        parts.append("%s p50 %.1f ms p99 %.1f ms (%d)" % (
            path.split("?")[0], percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000, len(values)))
    return parts


def proc_figures(pid):
    rss = 0
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    files = len(os.listdir("/proc/%d/fd" % pid))
    return rss, files


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--phase-seconds", type=float, default=5)
    parser.add_argument("--database")
    options = parser.parse_args()
    if shutil.which("stress-ng") is None:
        print("soak.py needs stress-ng: bash scripts/setup.sh stress-ng")
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="functionhost-soak-")
    os.makedirs(work + "/functions")
    with open(work + "/functions/hostile.js", "w") as f:
        f.write(HOSTILE)
    port = free_port()
    env = dict(os.environ, LEANCLOUD_APP_ID="soakapp", LEANCLOUD_APP_KEY="soakkey", LEANCLOUD_APP_MASTER_KEY="soakmaster",
               LEANCLOUD_APP_HOOK_KEY="soakhook", LOG_LEVEL="error")
    args = [options.binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", work + "/data",
            "--functions", work + "/functions"]
    if options.database:
        args += ["--database", options.database]
    server = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = False
    try:
        for _ in range(600):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                if request(c, "GET", "/__engine/1/ping") == 200:
                    break
            except OSError:
                time.sleep(0.05)
        print("hostile scripts and a sustained load:")
        baseline = Load(port, 4, NORMAL)
        baseline.run_for(options.phase_seconds)
        print("  baseline: " + "; ".join(summary(baseline)))

        stop = threading.Event()
        counts = {}
        # Every CPU busy for the phase (and the attackers' last calls): the scripts compete for
        # cores with other work, as on a loaded machine.
        cpus = os.cpu_count() or 2
        stress = subprocess.Popen(["stress-ng", "--cpu", str(cpus), "--timeout", "%ds" % (options.phase_seconds + 20)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        attackers = [threading.Thread(target=hostile_caller, args=(port, stop, name, counts))
                     for name in ["spin", "hog"] * 4 + ["recurse"]]
        try:
            # One after another, so later callers find the earlier ones' workers already stuck
            # (the way a pool picking idle workers gets every one of them taken).
            for t in attackers:
                t.start()
                time.sleep(0.1)
            under_attack = Load(port, 4, NORMAL, bound=BOUND)
            under_attack.run_for(options.phase_seconds)
            stop.set()
            for t in attackers:
                t.join()
        finally:
            stress.kill()
            stress.wait()
        ok = under_attack.latencies["/1.1/functions/ok"]
        print("  with %d CPUs busy, while 9 callers loop, recurse and allocate (%s calls stopped): %s; "
              "ok answered within 1 s: %d of %d"
              % (cpus, sum(counts.values()), "; ".join(summary(under_attack)),
                 sum(1 for v in ok if v <= 1.0), len(ok)))
        failures = baseline.failures + under_attack.failures
        if failures:
            print("  FAILED: %d normal requests failed: %s" % (len(failures), failures[:5]))
            failed = True

        warm = Load(port, 4, NORMAL)
        warm.run_for(min(5, options.seconds / 4))
        rss0, files0 = proc_figures(server.pid)
        soak = Load(port, 4, NORMAL)
        soak.run_for(options.seconds)
        rss1, files1 = proc_figures(server.pid)
        requests = sum(len(v) for v in soak.latencies.values())
        print("  soak: %d requests in %.0f s, %d failed; memory %d -> %d MB, open files %d -> %d"
              % (requests, options.seconds, len(soak.failures), rss0, rss1, files0, files1))
        if soak.failures or rss1 > rss0 * 1.5 + 10 or files1 > files0 + 16:
            print("  FAILED: failures, or memory or open files grew")
            failed = True
        if request(http.client.HTTPConnection("127.0.0.1", port, timeout=5), "GET", "/__engine/1/ping") != 200:
            failed = True
        if not failed:
            print("  OK")
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
