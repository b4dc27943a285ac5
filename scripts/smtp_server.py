"""The SMTP server the mail tests deliver to (run through scripts/smtp-server.sh).

Each message is written as JSON to DIRECTORY/NNNN.json before the server answers 250, so a
client whose send returned has its message on disk: the envelope, the raw text and what
Python's own email parser reads from it (decoded subject and addresses, the plain and HTML
bodies, the defects it found).
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--auth", nargs=2, metavar=("USER", "PASSWORD"))
    parser.add_argument("--auth-only", help="the one AUTH mechanism offered (PLAIN or LOGIN)")
    parser.add_argument("--fail-first", type=int, default=0, help="answer 451 to the first N messages")
    parser.add_argument(
        "--hostile",
        choices=["silent", "long-line", "many-lines", "inject-after-starttls"],
        help="no SMTP at all: a server that never speaks, sends an endless line, an endless reply, "
        "or a reply smuggled after its 220 to STARTTLS",
    )
    return parser.parse_args()


def read_message(raw):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    defects = [type(d).__name__ for d in message.defects]
    for part in message.walk():
        defects += [type(d).__name__ for d in part.defects]
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    return {
        "subject": str(message["subject"] or ""),
        "from": str(message["from"] or ""),
        "to": str(message["to"] or ""),
        "contentType": message.get_content_type(),
        "text": plain.get_content() if plain is not None else None,
        "html": html.get_content() if html is not None else None,
        "headerNames": [name for name, _ in message.raw_items()],
        "defects": defects,
    }


class Handler:
    def __init__(self, directory, fail_first):
        self.directory = directory
        self.fail_first = fail_first
        self.attempts = 0
        self.delivered = 0

    async def handle_DATA(self, server, session, envelope):
        self.attempts += 1
        if self.attempts <= self.fail_first:
            return "451 4.3.0 Try again later"
        raw = envelope.content
        transport = server.transport
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "raw": raw.decode("utf-8", "replace"),
            "tls": transport is not None and transport.get_extra_info("ssl_object") is not None,
            "authenticated": getattr(session, "authenticated", False),
            "login": (session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None),
        }
        record.update(read_message(raw))
        self.delivered += 1
        path = os.path.join(self.directory, "%04d.json" % self.delivered)
        with open(path + ".tmp", "w") as file:
            json.dump(record, file)
        os.replace(path + ".tmp", path)
        return "250 2.0.0 Message accepted"


def context(pair):
    if pair is None:
        return None
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(pair[0], pair[1])
    return tls


class Hostile(asyncio.Protocol):
    def __init__(self, mode):
        self.mode = mode

    def connection_made(self, transport):
        self.transport = transport
        if self.mode == "long-line":
            transport.write(b"220 " + b"x" * 100000)
        elif self.mode == "many-lines":
            transport.write(b"220-hello\r\n" * 1000)
        elif self.mode == "inject-after-starttls":
            transport.write(b"220 mail.test ESMTP\r\n")

    def data_received(self, data):
        if self.mode != "inject-after-starttls":
            return
        for line in data.split(b"\r\n"):
            if line.upper().startswith(b"EHLO"):
                self.transport.write(b"250-mail.test\r\n250 STARTTLS\r\n")
            elif line.upper() == b"STARTTLS":
                self.transport.write(b"220 Ready\r\n250 injected\r\n")


async def main():
    args = parse_args()
    if args.hostile:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: Hostile(args.hostile), "127.0.0.1", 0)
        print("ready %d" % server.sockets[0].getsockname()[1], flush=True)
        await loop.run_in_executor(None, sys.stdin.read)
        server.close()
        return
    handler = Handler(args.directory, args.fail_first)
    authenticator = None
    if args.auth:
        user, password = args.auth[0].encode(), args.auth[1].encode()

        def authenticator(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and data.login == user and data.password == password
            return AuthResult(success=ok, handled=False, auth_data=data)

    excluded = []
    if args.auth_only:
        excluded = [m for m in ("PLAIN", "LOGIN") if m != args.auth_only]
    starttls = context(args.starttls)

    def protocol():
        return SMTP(
            handler,
            hostname="mail.test",
            tls_context=starttls,
            require_starttls=starttls is not None,
            authenticator=authenticator,
            auth_required=authenticator is not None,
            # Credentials only inside TLS whenever the server offers TLS, as a real one would.
            auth_require_tls=starttls is not None,
            auth_exclude_mechanism=excluded,
        )

    loop = asyncio.get_running_loop()
    server = await loop.create_server(protocol, "127.0.0.1", 0, ssl=context(args.tls))
    print("ready %d" % server.sockets[0].getsockname()[1], flush=True)
    # Ends when the test closes its end of standard input (or kills the process).
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
