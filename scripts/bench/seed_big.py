"""Seeds the query benchmark: 100 Owner objects and N Big objects (unique `k`, `score` 0..999,
a pointer to an owner), through the batch API."""
import json, sys, urllib.request

base, count = sys.argv[1], int(sys.argv[2])
headers = {"X-LC-Id": "benchapp", "X-LC-Key": "benchkey", "Content-Type": "application/json"}

def post(path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request) as response:
        return json.load(response)

owners = []
for tier in range(100):
    owners.append(post("/1.1/classes/Owner", {"tier": tier % 10, "name": f"owner{tier}"})["objectId"])
for start in range(0, count, 500):
    requests = [{"method": "POST", "path": "/1.1/classes/Big", "body": {
        "k": i, "score": (i * 7919) % 1000, "title": f"object {i}",
        "owner": {"__type": "Pointer", "className": "Owner", "objectId": owners[i % 100]}}}
        for i in range(start, min(start + 500, count))]
    answers = post("/1.1/batch", {"requests": requests})
    assert all("success" in a for a in answers), answers[:2]
