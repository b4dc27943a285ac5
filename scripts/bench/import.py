#!/usr/bin/env python3
"""Import benchmark: N small objects in a console-export archive, imported by the release build.

Usage: import.py FUNCTIONHOST N WORKDIR [--database URL]

Writes `Item.0.jsonl` (with the `#filetype:JSON-streaming` header) as LeanCloud's console export
lays it out, packs it as a .tar.gz, runs `functionhost import` on it into a fresh data directory,
and prints the rate and the importer's peak resident memory (from the kernel's own accounting of
the child, getrusage). Then runs it again: the second run must write nothing.
"""
import json
import os
import resource
import subprocess
import sys
import tarfile
import time

# The bound the import keeps to, whatever the size of the export: it streams and writes in batches.
MEMORY_BOUND_MB = 100


def write_export(path, count):
    with open(path, "w") as out:
        out.write('#filetype:JSON-streaming {"type":"Class","class":"Item"}\n')
        for i in range(count):
            out.write(json.dumps({
                "objectId": "%024x" % i,
                "createdAt": "2024-01-01T00:00:00.000Z",
                "updatedAt": "2024-01-01T00:00:00.000Z",
                "n": i, "title": "item %d" % i, "done": i % 2 == 0,
                "ACL": {"*": {"read": True}},
            }, separators=(",", ":")))
            out.write("\n")


def run_import(binary, archive, data_dir, extra):
    started = time.monotonic()
    process = subprocess.Popen(
        [binary, "import", archive, "--data-dir", data_dir, "--json"] + extra,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate()
    seconds = time.monotonic() - started
    if process.returncode != 0:
        sys.exit("import failed: %s %s" % (out.decode(), err.decode()))
    # ru_maxrss of the children waited for so far, in KiB: this run's, as it is the largest yet.
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return json.loads(out), seconds, peak_mb


def main():
    binary, count, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    extra = sys.argv[4:]
    os.makedirs(work + "/export", exist_ok=True)
    jsonl = work + "/export/Item.0.jsonl"
    write_export(jsonl, count)
    archive = work + "/export.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        tar.add(jsonl, arcname="export/Item.0.jsonl")
    size_mb = os.path.getsize(jsonl) / 1e6
    summary, seconds, peak = run_import(binary, archive, work + "/data", extra)
    written = summary["written"]
    print("  import of %d objects (%.0f MB of JSON Lines, .tar.gz): %.1f s, %.0f objects/s, peak memory %.0f MB"
          % (written, size_mb, seconds, written / seconds, peak))
    again, seconds2, _ = run_import(binary, archive, work + "/data", extra)
    print("  the same import again: %d written, %d already there, %.1f s" % (again["written"], again["existing"], seconds2))
    ok = written == count and again["written"] == 0 and peak < MEMORY_BOUND_MB
    print("  %s: every object written once, peak memory under %d MB" % ("OK" if ok else "FAILED", MEMORY_BOUND_MB))
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
