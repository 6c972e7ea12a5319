"""Bounds on what the email package is given to parse, applied before it parses anything.

The email package's header parser is far from linear in some inputs: a 990 KB Subject of 14,000 RFC 2047
encoded words took 6.5 GB and half a minute, 480,000 plain words 105 s of CPU. The size limit on a
message is checked on its bytes, so it could only apply after that parse. Here the raw bytes are cut to
what a person's mail needs before the parser sees them:

- a message over the size limit keeps its header block only (it is answered "too large", which needs
  nothing more);
- a header block keeps at most :data:`MAX_FIELDS` fields, each at most :data:`MAX_FIELD_BYTES` long
  (RFC 5322 allows 998 characters a line; a real Subject, folded, is a few hundred), and the header
  block at most :data:`MAX_HEADER_BYTES` in all;
- a ``Content-Type`` or ``Content-Disposition`` field, the message's or a part's, keeps at most
  :data:`MAX_PARAMS` parameters (3,000 RFC 2231 parameters in 39 KB took the parser 13 s; a real one
  has a few, a long file name in RFC 2231 pieces a dozen), cut at a parameter's end;
- a message keeps at most :data:`MAX_PARTS` MIME parts: the body ends before the delimiter line of the
  next (3,000 parts took 7 s; orders and commands stand in the first few).

What is cut is only what the host reads; the archive keeps the message as it came (bounded too).
"""

from __future__ import annotations

import re

MAX_FIELD_BYTES = 4000
MAX_FIELDS = 200
MAX_HEADER_BYTES = 64_000
MAX_PARAMS = 32
MAX_PARTS = 100
#: the start of a new header field: a line not beginning with white space (a folded line does)
_FIELD_START = re.compile(rb"\r?\n(?![ \t])")
#: a Content-Type or Content-Disposition field with its folded lines (linear: no two ways to match)
_PARAMETERISED = re.compile(rb"(?im)^content-(?:type|disposition)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*")
#: a parameter's end: a ";" outside a quoted string (a quoted string may hold escaped quotes)
_PARAM_END = re.compile(rb'"(?:[^"\\\r\n]|\\.)*"|;')
_BOUNDARY = re.compile(rb'(?i)boundary[ \t]*=[ \t]*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))')


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
    return _few_parts(_few_params(head + separator + body))


def _few_params(raw: bytes) -> bytes:
    """``raw`` with each Content-Type and Content-Disposition cut to :data:`MAX_PARAMS` parameters."""
    if raw.count(b";") <= MAX_PARAMS:  # no field can have more: nothing to look for
        return raw
    return _PARAMETERISED.sub(_cut_params, raw)


def _cut_params(field: re.Match[bytes]) -> bytes:
    text = field.group(0)
    seen = 0
    for found in _PARAM_END.finditer(text):
        if found.group(0) == b";":
            seen += 1
            if seen > MAX_PARAMS:
                return text[: found.start()]
    return text


def _few_parts(raw: bytes) -> bytes:
    """``raw`` ending before the delimiter line of its :data:`MAX_PARTS` + 1st MIME part, if it has
    that many (counted over every boundary it declares, nested ones too)."""
    # each part declares one boundary at most: past the first MAX_PARTS, the parts are cut anyway
    boundaries = list(dict.fromkeys(a or b for a, b in _BOUNDARY.findall(raw)))[: MAX_PARTS + 1]
    if not boundaries:
        return raw
    # the longest first: a boundary that begins another is not taken for it
    names = b"|".join(re.escape(name) for name in sorted(boundaries, key=len, reverse=True))
    delimiter = re.compile(rb"(?m)^--(?:" + names + rb")")
    for count, found in enumerate(delimiter.finditer(raw)):
        if count >= MAX_PARTS:
            return raw[: found.start()]
    return raw
