"""A real SMTP server for the e-mail tests (aiosmtpd).

    python smtp_sink.py HOST PORT DIR

Accepts every message and writes each, once fully received, to DIR/NNNN.json:
the envelope (mail_from, rcpt_tos), the decoded To and Subject headers, the decoded
plain-text body and the raw message. Prints "ready" when it listens; stops when its
standard input closes (the test ended) or it is killed.
"""

import email
import email.policy
import itertools
import json
import pathlib
import sys

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, out: pathlib.Path):
        self.out = out
        self.n = itertools.count(1)

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        body = msg.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "to": str(msg.get("To", "")),
            "subject": str(msg.get("Subject", "")),
            "body": body.get_content() if body is not None else "",
            "raw": raw.decode("utf-8", "replace"),
        }
        n = next(self.n)
        tmp = self.out / f"{n:04}.json.tmp"
        tmp.write_text(json.dumps(record))
        tmp.rename(self.out / f"{n:04}.json")
        return "250 Message accepted for delivery"


def main():
    host, port, out = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    controller = Controller(Sink(out), hostname=host, port=port)
    controller.start()
    print("ready", flush=True)
    try:
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
