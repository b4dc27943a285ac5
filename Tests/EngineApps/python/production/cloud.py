# The engine tests' production app: functions, class hooks that change and refuse writes and
# write back to the host through the SDK, a login refusal, and a web page.
import json
import os
import time

import leancloud
from leancloud import Engine, LeanEngineError


def web(environ, start_response):
    # The app's own pages: what it was asked and what the host told it about the client.
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    page = {
        "env": os.environ.get("LEANCLOUD_APP_ENV"),
        "method": environ.get("REQUEST_METHOD"),
        "path": environ.get("PATH_INFO"),
        "query": environ.get("QUERY_STRING"),
        "host": environ.get("HTTP_HOST"),
        "forwardedFor": environ.get("HTTP_X_FORWARDED_FOR"),
        "realIP": environ.get("HTTP_X_REAL_IP"),
        "cookie": environ.get("HTTP_COOKIE"),
        "secretHop": environ.get("HTTP_X_SECRET_HOP"),
        "bodyBytes": len(body),
    }
    start_response("200 OK", [("Content-Type", "application/json"), ("Set-Cookie", "session=abc; Path=/")])
    return [json.dumps(page).encode()]


engine = Engine(web)


@engine.define
def hello(**params):
    return {"hello": params.get("name"), "env": os.environ.get("LEANCLOUD_APP_ENV"), "keys": sorted(params)}


@engine.define
def whoami(**params):
    user = engine.current.user
    return {
        "username": user.get("username") if user else None,
        "remote": engine.current.meta.get("remote_address"),
    }


@engine.define
def refuse(**params):
    raise LeanEngineError(code=123, message="refused on purpose")


@engine.define
def crash(**params):
    raise RuntimeError("crashed on purpose")


@engine.define
def slow(**params):
    time.sleep(float(params.get("seconds", 30)))
    return "late"


@engine.define
def exitNow(**params):
    # The process dies mid-call, as a crashed engine does.
    os._exit(3)


@engine.define
def countTodos(**params):
    # A function reading the host's data through the SDK, as the caller's session allows.
    return leancloud.Query("Todo").count()


@engine.before_save("Todo")
def before_todo_save(todo):
    title = todo.get("title")
    if not title:
        raise LeanEngineError("a todo needs a title")
    todo.set("title", title.strip())
    todo.set("checkedBy", "python")


@engine.after_save("Todo")
def after_todo_save(todo):
    log = leancloud.Object.extend("TodoLog")()
    log.set("todoId", todo.id)
    log.set("title", todo.get("title"))
    log.save()


@engine.before_update("Todo")
def before_todo_update(todo):
    if "locked" in todo.updated_keys:
        raise LeanEngineError("locked can't be changed")


@engine.after_update("Todo")
def after_todo_update(todo):
    # Saving the object handed to the hook doesn't run the hook again (the SDK marks it).
    todo.increment("updates", 1)
    todo.save()


@engine.before_delete("Todo")
def before_todo_delete(todo):
    if todo.get("keep"):
        raise LeanEngineError("this todo is kept")


@engine.on_login
def on_login(user):
    if user.get("username") == "blocked":
        raise LeanEngineError("this user may not log in")


@engine.define
def environ(**params):
    # What the host passed the process: LeanEngine's variables, never the host's own secrets.
    return sorted(os.environ)


@engine.define
def big(**params):
    # An answer past LeanEngine's 20 MB body limit.
    return "x" * (21 * 1024 * 1024)


@engine.define
def _clientOnline(**params):
    # A realtime hook: this host has no realtime messaging to fire it, and a client can't call it.
    return "online"


@engine.on_verified("sms")
def on_sms_verified(user):
    welcome = leancloud.Object.extend("Welcome")()
    welcome.set("user", user.id)
    welcome.set("phone", user.get("mobilePhoneNumber"))
    welcome.save()


@engine.on_auth_data
def on_auth_data(auth_data):
    if "weixin" in auth_data:
        if auth_data["weixin"].get("openid") == "blocked":
            raise LeanEngineError("Blocked account.")
        auth_data["weixin"]["checked"] = True
    return auth_data


@engine.define
def pid(**params):
    # Which process answers: a deploy starts a new one and stops the old.
    return os.getpid()


@engine.define
def gate(**params):
    # A call held open until the test opens the gate: it says it has entered, then waits (gevent
    # sleeps, so the process keeps serving other calls meanwhile).
    path = params["path"]
    with open(path + ".entered", "w") as entered:
        entered.write(str(os.getpid()))
    for _ in range(1200):
        if os.path.exists(path):
            return "opened by %d" % os.getpid()
        time.sleep(0.05)
    return "never opened"


@engine.define
def installed(**params):
    # What the deploy's install step left in the app's folder, and a variable of its environment.
    text = open("installed.txt").read().strip() if os.path.exists("installed.txt") else None
    return {"installed": text, "greeting": os.environ.get("GREETING")}
