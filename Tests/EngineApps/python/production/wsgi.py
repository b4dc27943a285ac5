# A LeanEngine app as LeanCloud's Python template starts it: gevent's WSGI server on
# LEANCLOUD_APP_PORT, the SDK initialised from the variables the platform (here, the host) sets.
from gevent import monkey

monkey.patch_all()

import os

import leancloud
from gevent.pywsgi import WSGIServer

from cloud import engine

leancloud.init(
    os.environ["LEANCLOUD_APP_ID"],
    app_key=os.environ["LEANCLOUD_APP_KEY"],
    master_key=os.environ["LEANCLOUD_APP_MASTER_KEY"],
    hook_key=os.environ["LEANCLOUD_APP_HOOK_KEY"],
)
leancloud.use_master_key(False)

if __name__ == "__main__":
    port = int(os.environ["LEANCLOUD_APP_PORT"])
    print("engine listening on", port, flush=True)
    WSGIServer(("127.0.0.1", port), engine, log=None).serve_forever()
