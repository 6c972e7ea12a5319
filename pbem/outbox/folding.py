"""Header lines of the mail the host writes, folded as the email package's compat32 policy folds them,
without its cost where the answer is known (:func:`pbem.outbox.compose.report_mail` writes its headers
itself).
"""

from __future__ import annotations

import email.policy
from email.header import Header
from functools import lru_cache

#: RFC 5322 folding for the few headers :func:`report_mail` writes (the compat32 policy: no parsing)
HEADER_POLICY = email.policy.compat32.clone(linesep="\r\n", max_line_length=78)


def folded(name: str, value: str) -> bytes:
    """The header line ``name: value`` as :data:`HEADER_POLICY` folds it. A short ASCII line it leaves
    as it is, so that is written at once (the policy's Header machinery took a quarter of a
    millisecond over a report mail's dozen headers); anything else is folded by the policy."""
    if len(name) + len(value) <= 76 and _plain(name, value):
        return f"{name}: {value}\r\n".encode("ascii")
    return _policy_folded(name, value)


@lru_cache(maxsize=256)
def _policy_folded(name: str, value: str) -> bytes:
    """The policy's folding of one header, words beyond ASCII as RFC 2047 encoded words (the email
    package's :class:`~email.header.Header`): the same subject goes to the seats of a turn, and the
    folding is a function of the name and value alone."""
    return HEADER_POLICY.fold_binary(name, header_value(name, value))


def header_value(name: str, value: str) -> str | Header:
    """Plain ASCII as it is; anything else as RFC 2047 encoded words."""
    return value if _plain(name, value) else Header(value, "utf-8", header_name=name)


def _plain(name: str, value: str) -> bool:
    """ASCII a reader takes as it is written: printable, and in a Subject (free text, a player's words
    in it) nothing a mail reader would decode as an encoded word (``=?…?=``: "=??Q?=00" came back as a
    NUL), so that goes encoded. An address header's display name comes encoded already (formataddr)."""
    if name.lower() == "subject" and "=?" in value:
        return False
    return value.isascii() and value.isprintable()


def alternative_header(boundary: str) -> bytes:
    """The message's ``Content-Type`` header, folded as :data:`HEADER_POLICY` folds it (one line is
    too long for it: the parameter on a line of its own), written at once: each mail has its own
    boundary, so the policy's folding was done, and cached in vain, once a mail."""
    return f'Content-Type: multipart/alternative;\r\n boundary="{boundary}"\r\n'.encode("ascii")
