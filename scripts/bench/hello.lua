-- wrk script: call the Swift cloud function `swiftHello`.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-LC-Id"] = "benchapp"
wrk.headers["X-LC-Key"] = "benchkey"
wrk.body = "{}"
