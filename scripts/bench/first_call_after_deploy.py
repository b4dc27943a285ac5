"""The latency a deploy adds to the first call after it: deploy a new version to staging,
time the first call of a function in it, then the median of warm calls; repeat, print the
median extra in milliseconds. Usage: first_call_after_deploy.py URL APP_ID MASTER_KEY [ROUNDS]"""
import http.client, json, statistics, sys, time, urllib.parse

url, app_id, master = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
parts = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(parts.hostname, parts.port)
headers = {"X-LC-Id": app_id, "X-LC-Key": master + ",master", "Content-Type": "application/json", "X-LC-Prod": "0"}


def request(method, path, body):
    connection.request(method, path, json.dumps(body), headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {data[:200]!r}")
    return data


def timed_call(tag):
    start = time.perf_counter()
    answer = json.loads(request("POST", "/1.1/functions/tagged", {}))
    elapsed = (time.perf_counter() - start) * 1000
    assert answer["result"] == tag, answer
    return elapsed


extras = []
for round in range(rounds):
    tag = f"v{round}"
    source = "AV.Cloud.define('tagged', function () { return '%s'; });" % tag
    request("POST", "/1.1/engine/deploys", {"environment": "staging", "message": tag, "files": {"bench.js": source}})
    first = timed_call(tag)
    warm = statistics.median(timed_call(tag) for _ in range(20))
    extras.append(first - warm)
print(f"{statistics.median(extras):.2f}")
