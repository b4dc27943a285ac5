-- wrk script: create one small object per request.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-LC-Id"] = "benchapp"
wrk.headers["X-LC-Key"] = "benchkey"
wrk.body = '{"title":"benchmark object","priority":3,"done":false,"tags":["a","b"],"owner":"someone"}'
