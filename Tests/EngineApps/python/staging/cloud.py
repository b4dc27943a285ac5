# The engine tests' staging app: different code from production's.
import os

from leancloud import Engine


def web(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
    return [b"staging web page"]


engine = Engine(web)


@engine.define
def hello(**params):
    return {"staging": True, "env": os.environ.get("LEANCLOUD_APP_ENV")}
