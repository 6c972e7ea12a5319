"""A small, seeded MIME fuzzer: the messages an outsider (or a broken mail program) may send the host.

Control characters and Unicode line breaks in the headers that threading copies, malformed and non-ASCII
addresses, nested multiparts (once in a while 400 deep), lying charsets (``punycode``, ``utf-7``,
unknown ones) and transfer encodings. Deterministic for a given :class:`random.Random`.
"""

from __future__ import annotations

import random

_NASTY = ["\x0b", "\x0c", "\u2028", "\x85", "\x7f", "\x00", "é", "=?utf-8?q?=E9?=", "\r", "\t", "<", '"', ";"]
_CHARSETS = [
    "utf-8",
    "punycode",
    "idna",
    "utf-7",
    "x-unknown",
    "uu",
    "base64",
    "rot13",
    "utf-16",
    "latin-1",
    "",
]
_CTES = ["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "binary", "bogus"]


def _noise(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_NASTY + list("abc@. -_:")) for _ in range(rng.randint(0, n)))


def _part(rng: random.Random, depth: int) -> str:
    if depth > 0 and rng.random() < 0.5:
        boundary = f"b{rng.randint(0, 10**6)}{_noise(rng, 2)}"
        inner = "".join(f"--{boundary}\r\n{_part(rng, depth - 1)}\r\n" for _ in range(rng.randint(0, 3)))
        close = f"--{boundary}--\r\n" if rng.random() < 0.8 else ""
        kind = rng.choice(["mixed", "alternative", "report"])
        return f'Content-Type: multipart/{kind}; boundary="{boundary}"\r\n\r\n{inner}{close}'
    ctype = rng.choice(
        ["text/plain", "text/html", "application/yaml", "application/octet-stream", "message/rfc822"]
    )
    name = rng.choice(["", f'; name="o{_noise(rng, 3)}.yaml"'])
    body = rng.choice(
        ["game: g\npassword: p\norders: []\n", _noise(rng, 40), "=E9=\r\n", "aGVsbG8=\r\n", "<p>x</p>"]
    )
    return (
        f"Content-Type: {ctype}; charset={rng.choice(_CHARSETS)}{name}\r\n"
        f"Content-Transfer-Encoding: {rng.choice(_CTES)}\r\n\r\n{body}"
    )


def fuzzed(rng: random.Random, index: int) -> bytes:
    local = rng.choice(["ann"] * 4 + ["john.", "a..b", "x\x7fy", "bob", "josé", ""])
    domain = rng.choice(["example.org"] * 4 + ["exämple.org", "localhost", "xn--zz.org", "example.org>"])
    headers = [
        f"From: {_noise(rng, 4)} <{local}@{domain}>" if rng.random() < 0.5 else f"From: {local}@{domain}",
        f"Message-ID: <f{index}{_noise(rng, 3)}@example.org>",
        f"References: <{_noise(rng, 6)}@x>",
        f"Subject: {_noise(rng, 20)}",
    ]
    rng.shuffle(headers)
    text = "\r\n".join(headers) + "\r\nMIME-Version: 1.0\r\n" + _part(rng, rng.choice([1, 3, 6]))
    data = text.encode("utf-8", "surrogateescape")
    if rng.random() < 0.1:  # MIME nested far beyond any mail program
        data = data.replace(
            b"MIME-Version: 1.0\r\n",
            b"MIME-Version: 1.0\r\n"
            + b"".join(
                b'Content-Type: multipart/mixed; boundary="n%d"\r\n\r\n--n%d\r\n' % (i, i) for i in range(400)
            ),
        )
    return data
