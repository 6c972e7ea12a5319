"""Header lines of the mail the host writes, folded as the email package's compat32 policy folds them,
without its cost where the answer is known (:func:`pbem.outbox.compose.report_mail` writes its headers
itself).
"""

from __future__ import annotations

import email.policy
import string
from email import base64mime, quoprimime
from email.header import Header
from functools import lru_cache

#: RFC 5322 folding for the few headers :func:`report_mail` writes (the compat32 policy: no parsing)
HEADER_POLICY = email.policy.compat32.clone(linesep="\r\n", max_line_length=78)


def folded(name: str, value: str) -> bytes:
    """The header line ``name: value`` as :data:`HEADER_POLICY` folds it. A short ASCII line it leaves
    as it is, so that is written at once (the policy's Header machinery took a quarter of a
    millisecond over a report mail's dozen headers); anything else is folded by the policy."""
    if len(name) + len(value) <= 76 and value.isascii() and value.isprintable():  # no control character
        return f"{name}: {value}\r\n".encode("ascii")
    return _policy_folded(name, value)


@lru_cache(maxsize=256)
def _policy_folded(name: str, value: str) -> bytes:
    """The policy's folding of one header: the same subject (words beyond ASCII: encoded words) goes
    to the seats of a turn, and the folding is a function of the name and value alone."""
    if name == "Subject" and value.isprintable() and not value.isascii():
        return _encoded_subject(value)
    return HEADER_POLICY.fold_binary(name, header_value(name, value))


#: what an encoded word adds to its text: ``=?utf-8?q?`` and ``?=``
_CHROME = len("=?utf-8?q??=")
#: the bytes quoted-printable writes as they are in a header (RFC 2047 §5; ``email.quoprimime``), the
#: space as "_"; every other byte as "=XX"
_HEADER_SAFE = frozenset(b"-!*+/ " + (string.ascii_letters + string.digits).encode("ascii"))


def _encoded_subject(value: str) -> bytes:
    """``Subject: value`` folded as :data:`HEADER_POLICY` folds ``Header(value, "utf-8")``, for a
    printable ``value`` beyond ASCII: RFC 2047 encoded words, quoted-printable unless base64 is
    shorter for the whole value, as many characters in each as fit its line of 78 (the header's
    name on the first), whole characters, each further line indented by a space.

    The email package finds each word's end by encoding the growing word again for every character
    it adds (``Charset.header_encode_lines``: 43,000 generator steps a turn for the subjects); here the
    sizes are added up once, and the words encoded by the package's own encoders.
    ``tests/mail/test_report_mail.py`` checks it against the policy on every kind of subject."""
    data = value.encode("utf-8")
    qp = quoprimime.header_length(data) <= base64mime.header_length(data)
    encode = quoprimime.header_encode if qp else base64mime.header_encode
    room = HEADER_POLICY.max_line_length - len("Subject: ") - _CHROME  # the first line's
    words: list[str] = []
    start, size = 0, 0  # the current word's first character; its bytes (base64) or its length (QP)
    for at, char in enumerate(value):
        octets = char.encode("utf-8")
        grown = size + (sum(1 if o in _HEADER_SAFE else 3 for o in octets) if qp else len(octets))
        if (grown if qp else -(-grown // 3) * 4) > room:
            words.append(encode(value[start:at].encode("utf-8"), charset="utf-8"))
            start, grown = at, grown - size
            room = HEADER_POLICY.max_line_length - 1 - _CHROME  # a further line's, after its space
        size = grown
    words.append(encode(value[start:].encode("utf-8"), charset="utf-8"))
    return ("Subject: " + "\r\n ".join(words) + "\r\n").encode("ascii")


def header_value(name: str, value: str) -> str | Header:
    """ASCII as it is; anything else as RFC 2047 encoded words."""
    return value if value.isascii() else Header(value, "utf-8", header_name=name)


def alternative_header(boundary: str) -> bytes:
    """The message's ``Content-Type`` header, folded as :data:`HEADER_POLICY` folds it (one line is
    too long for it: the parameter on a line of its own), written at once: each mail has its own
    boundary, so the policy's folding was done, and cached in vain, once a mail."""
    return f'Content-Type: multipart/alternative;\r\n boundary="{boundary}"\r\n'.encode("ascii")
