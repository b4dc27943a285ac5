-- wrk script: authenticated GET.
wrk.headers["X-LC-Id"] = "benchapp"
wrk.headers["X-LC-Key"] = "benchkey"
