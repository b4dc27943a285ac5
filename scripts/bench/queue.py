"""The Cloud Queue on one host: tasks per second through it, and how late a task starts.

  - throughput: N tasks of the Swift function `swiftHello` enqueued over REST as fast as one
    connection sends them; tasks/s is N over the time from the first enqueue to the last task's
    end (as the task records say), and the enqueue rate on its own;
  - delay: from a task's due time (its enqueue plus the delay asked) to its first attempt's
    start (the master's listing of the records), p50/p99, for the tasks above (due at
    their enqueue: the queue's own backlog is in it) and for DELAYED tasks enqueued with a
    delay of 1 to 2 s onto an idle queue (what the host's timing adds: its wake-up and claim).

Usage: queue.py BASE_URL LABEL [N] [DELAYED]  (the app benchapp/benchkey/benchmaster of scripts/bench.sh)"""
import datetime, http.client, json, sys, time, urllib.parse

base, label = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
delayed = int(sys.argv[4]) if len(sys.argv) > 4 else 50
url = urllib.parse.urlsplit(base)
headers = {"X-LC-Id": "benchapp", "X-LC-Key": "benchmaster,master", "Content-Type": "application/json"}
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)


def request(method, path, body=None):
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data)


def seconds(text):
    """An ISO 8601 time of a task record as seconds since 1970."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def enqueue(prefix, n, delay_ms=lambda i: 0):
    """Enqueues n tasks; answers their uniqueId -> delay in ms."""
    ids = {}
    for i in range(n):
        body = {"function": "swiftHello", "params": {"name": str(i)}, "uniqueId": f"{prefix}-{i}", "delay": delay_ms(i)}
        ids[request("POST", "/1.1/engine/cloud-queue/tasks", body)["uniqueId"]] = delay_ms(i)
    return ids


def finished(ids, timeout):
    """Each task's whole record (the master's listing) once every one has ended."""
    deadline = time.monotonic() + timeout
    while True:
        records, after = {}, None
        while True:
            page = request("GET", "/1.1/engine/cloud-queue/tasks?limit=100" + (f"&after={after}" if after else ""))["results"]
            records.update({r["uniqueId"]: r for r in page if r["uniqueId"] in ids})
            if len(page) < 100:
                break
            after = page[-1]["uniqueId"]
        if len(records) == len(ids) and all(r["status"] in ("success", "failed") for r in records.values()):
            return records
        if time.monotonic() > deadline:
            sys.exit(f"tasks not finished after {timeout} s")
        time.sleep(0.2)


def delays(records, ids):
    """Due time (enqueue plus the delay asked) to the first attempt's start, in ms, per task."""
    values = []
    for uniqueId, record in records.items():
        history = record.get("history") or []
        if history:
            due = seconds(record["createdAt"]) + ids[uniqueId] / 1000
            values.append((seconds(history[0]["startedAt"]) - due) * 1000)
    return values


stamp = int(time.time())
print(f"Cloud Queue ({label}), {count} tasks of a Swift function, one enqueuing connection:")
began = time.time()
ids = enqueue(f"bench{stamp}", count)
enqueued = time.time() - began
records = finished(ids, 600)
failed = [r for r in records.values() if r["status"] != "success"]
last = max(seconds(r["finishedAt"]) for r in records.values())
print(f"  enqueue over REST            {count / enqueued:10.0f} tasks/s")
print(f"  enqueue to last task's end   {count / (last - began):10.0f} tasks/s  ({last - began:.1f} s{', %d failed' % len(failed) if failed else ''})")
backlog = delays(records, ids)
if backlog:
    print(f"  due to start, with backlog   p50 {percentile(backlog, 50):8.1f} ms   p99 {percentile(backlog, 99):8.1f} ms")

ids = enqueue(f"benchdelay{stamp}", delayed, lambda i: 1000 + (i * 997) % 1000)
idle = delays(finished(ids, 120), ids)
if idle:
    print(f"  due to start, idle queue     p50 {percentile(idle, 50):8.1f} ms   p99 {percentile(idle, 99):8.1f} ms  ({delayed} tasks delayed 1-2 s)")
