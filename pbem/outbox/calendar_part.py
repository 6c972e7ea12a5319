"""The ``text/calendar`` parts of a report mail (:mod:`pbem.render.calendar`'s iCalendar texts), as
:func:`pbem.outbox.compose.report_mail` writes them beside the report: each part's headers and its
base64 body, and the ``multipart/mixed`` that holds the report's alternative first and them after it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence

from pbem.core.codec import sha256_hex


def _method(part: str) -> str:
    found = re.search(r"^METHOD:(\w+)", part, re.MULTILINE)
    return found.group(1) if found else "PUBLISH"


def calendar_parts(calendars: Sequence[str]) -> list[tuple[bytes, bytes]]:
    """(headers, body) of each calendar's part, numbered from 1 in its file name."""
    return [
        (
            f'Content-Type: text/calendar; charset="utf-8"; method={_method(text)}\r\n'
            "Content-Transfer-Encoding: base64\r\n"
            f'Content-Disposition: attachment; filename="deadline-{number}.ics"\r\n'.encode("ascii"),
            base64.encodebytes(text.encode("utf-8")).replace(b"\n", b"\r\n").removesuffix(b"\r\n"),
        )
        for number, text in enumerate(calendars, 1)
    ]


def mixed_boundary(message_id: str) -> str:
    """The boundary of the ``multipart/mixed``, from the Message-ID as the alternative's is: the same
    mail, the same bytes. ``mixed`` keeps it from starting, or being started by, the others."""
    return "=_pbem_mixed_" + sha256_hex(message_id)[:24]
