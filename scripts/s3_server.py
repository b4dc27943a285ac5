"""moto's S3 on a free loopback port, for the file tests (scripts/s3-server.sh starts it)."""
import logging
import sys

from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin
from moto.iam.models import iam_backends
from moto.s3.models import s3_backends
from moto.server import ThreadedMotoServer

ACCOUNT = "123456789012"


def main() -> None:
    # One line per request on stderr would bury the tests' own output.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    bucket = sys.argv[1]
    auth = "--auth" in sys.argv[2:]
    s3_backends[ACCOUNT]["aws"].create_bucket(bucket, "us-east-1")
    if auth:
        # A user allowed everything in S3; from now on every request must be signed by its key.
        iam = iam_backends[ACCOUNT]["aws"]
        iam.create_user("us-east-1", "files")
        iam.put_user_policy(
            "files", "s3", '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}'
        )
        key = iam.create_access_key("files")
        access, secret = key.access_key_id, key.secret_access_key
        settings.INITIAL_NO_AUTH_ACTION_COUNT = 0
        ActionAuthenticatorMixin.request_count = 0
    else:
        access, secret = "AKIAFILESTESTS", "files-tests-secret"
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    print(f"ready http://{host}:{port} {access} {secret}", flush=True)
    # Stopped by closing its standard input.
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
