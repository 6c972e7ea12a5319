"""Bounds on what the email package is given to parse, applied before it parses anything.

The email package's header parser is far from linear in some inputs: a 990 KB Subject of 14,000 RFC 2047
encoded words took 6.5 GB and half a minute, 480,000 plain words 105 s of CPU. The size limit on a
message is checked on its bytes, so it could only apply after that parse. Here the raw bytes are cut to
what a person's mail needs before the parser sees them:

- a message over the size limit keeps its header block only (it is answered "too large", which needs
  nothing more);
- a header block keeps at most :data:`MAX_FIELDS` fields, each at most :data:`MAX_FIELD_BYTES` long
  (RFC 5322 allows 998 characters a line; a real Subject, folded, is a few hundred), and the header
  block at most :data:`MAX_HEADER_BYTES` in all.

What is cut is only what the host reads; the archive keeps the message as it came (bounded too).
"""

from __future__ import annotations

import re

MAX_FIELD_BYTES = 4000
MAX_FIELDS = 200
MAX_HEADER_BYTES = 64_000
#: the start of a new header field: a line not beginning with white space (a folded line does)
_FIELD_START = re.compile(rb"\r?\n(?![ \t])")


def split(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """The header block, the separator and the body (both empty when there is no body)."""
    found = re.search(rb"\r?\n\r?\n", raw)
    if found is None:
        return raw, b"", b""
    return raw[: found.start()], raw[found.start() : found.end()], raw[found.end() :]


def bounded(raw: bytes, max_message_bytes: int) -> bytes:
    """``raw`` as the parser may see it (see the module). Unchanged for any ordinary message."""
    head, separator, body = split(raw)
    if len(raw) > max_message_bytes:
        body = b""
    if len(head) > MAX_FIELD_BYTES or len(raw) > max_message_bytes:
        fields = _FIELD_START.split(head[: MAX_HEADER_BYTES * 4])
        newline = b"\r\n" if b"\r\n" in head[:2000] else b"\n"
        kept, total = [], 0
        for field in fields[:MAX_FIELDS]:
            field = field[:MAX_FIELD_BYTES]
            if total + len(field) > MAX_HEADER_BYTES:
                break
            kept.append(field)
            total += len(field) + len(newline)
        head = newline.join(kept)
        separator = separator or newline + newline
    return head + separator + body
