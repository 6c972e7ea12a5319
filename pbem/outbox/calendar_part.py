"""A mail with its ``text/calendar`` parts (:mod:`pbem.render.calendar`): the message as composed, wrapped in
a ``multipart/mixed`` whose first part is the message's own body and whose next parts are the calendars.

Done on the message's bytes, after it is composed, so that however the body and headers are built
(the report's alternative of text and HTML, pictures), adding a calendar is one call at the end.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence

from pbem.core.codec import sha256_hex

#: the top-level Content-Type header, with its folded continuation lines
_CONTENT_TYPE = re.compile(rb"^Content-Type:[^\r\n]*(?:\r\n[ \t][^\r\n]*)*\r\n", re.IGNORECASE | re.MULTILINE)


def _method(part: str) -> str:
    found = re.search(r"^METHOD:(\w+)", part, re.MULTILINE)
    return found.group(1) if found else "PUBLISH"


def attach_calendars(message: bytes, calendars: Sequence[str]) -> bytes:
    """``message`` (RFC 5322 bytes, CRLF) with ``calendars`` (iCalendar texts) as parts of their own;
    the message as it is when there are none."""
    if not calendars:
        return message
    head, sep, body = message.partition(b"\r\n\r\n")
    head += b"\r\n"
    found = _CONTENT_TYPE.search(head)
    if not sep or found is None:
        raise ValueError("a message without a Content-Type cannot take a calendar part")
    inner_type = found.group(0)
    encoding = re.search(rb"^Content-Transfer-Encoding:[^\r\n]*\r\n", head, re.IGNORECASE | re.MULTILINE)
    inner_head = inner_type + (encoding.group(0) if encoding else b"")
    rest = head.replace(inner_type, b"", 1)
    if encoding:
        rest = rest.replace(encoding.group(0), b"", 1)
    boundary = ("=_pbem_mixed_" + sha256_hex(body.decode("latin-1") + "".join(calendars))[:24]).encode()
    out = [rest, b'Content-Type: multipart/mixed; boundary="', boundary, b'"\r\n\r\n']
    out += [b"--", boundary, b"\r\n", inner_head, b"\r\n", body.removesuffix(b"\r\n"), b"\r\n"]
    for number, text in enumerate(calendars, 1):
        data = base64.encodebytes(text.encode("utf-8")).replace(b"\n", b"\r\n")
        method = _method(text)
        out += [
            b"--",
            boundary,
            b"\r\n",
            f'Content-Type: text/calendar; charset="utf-8"; method={method}\r\n'.encode(),
            b"Content-Transfer-Encoding: base64\r\n",
            f'Content-Disposition: attachment; filename="deadline-{number}.ics"\r\n\r\n'.encode(),
            data,
        ]
    out += [b"--", boundary, b"--\r\n"]
    return b"".join(out)
