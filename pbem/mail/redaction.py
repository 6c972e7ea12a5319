"""Passwords out of the archived copy of an inbound message, wherever the message holds them.

A password may stand in any part (plain, HTML, an attachment, however transfer-encoded), in any shape
(:mod:`pbem.intake.redaction`: block or flow YAML, JSON, escaped), and in a header (the Subject, encoded or
not). :func:`redact_message` rewrites each part and header that holds one, then checks the result
the way an attacker would read it (every part decoded, every header decoded, the bytes as they are);
if a password still shows, only the headers that hold none are kept.

Migration ``0009`` keeps its own frozen copy of this redaction, run over the rows an older pbem stored.
"""

from __future__ import annotations

import html
import re
from email import policy

from pbem.intake import redaction
from pbem.mail import limits, reading

#: headers a password is looked for in (the ones a mail program lets a person write)
_WRITTEN_HEADERS = ("Subject", "Comments", "Keywords", "X-Orders")
MARK = "[password redacted]"
_WITHHELD_BODY = b"[body withheld: it held the password in a form that could not be redacted]\r\n"


def _texts(msg: reading.EmailMessage) -> list[str]:
    texts = [reading.header(msg, name) for name in _WRITTEN_HEADERS]
    for part in msg.walk():
        if not part.is_multipart():
            body = reading.decode_part(part)
            if part.get_content_subtype() == "html":
                body = html.unescape(re.sub(r"<[^>]*>", "\n", body))
            texts.append(body)
    return texts


#: a password as the host makes them (:func:`pbem.intake.passwords.generate`): four words and two digits
_SHAPED = re.compile(r"(?<![\w-])[a-z]+(?:-[a-z]+){3}-[0-9]{2}(?![\w-])")
#: the value of a ``game:`` or ``player:`` line: a name, which may have a password's shape, and is none
_NAMED = re.compile(r"(?im)^[ \t]*[\"']?(?:game|player|seat)[\"']?[ \t]*:[ \t]*[\"']?([\w-]+)")


def shaped_passwords(text: str) -> list[str]:
    """The words of ``text`` shaped like the host's passwords, written with no ``password:`` key (a
    Subject of "orders tulip-frog-lamp-desk-42"); a game's or seat's name given as one is left."""
    if "-" not in text:
        return []
    names = set(_NAMED.findall(text))
    return [token for token in dict.fromkeys(_SHAPED.findall(text)) if token not in names]


#: the value of a ``notify:`` line that is a URL
_NOTICE_URL = re.compile(r"(?im)^[ \t]*notify[ \t]*:[ \t]*['\"]?([a-z][a-z0-9+.-]*://[^\s'\"]+)")


def secrets_in_message(msg: reading.EmailMessage) -> list[str]:
    """Every password the message names: under a ``password`` key in any part or written header, or
    written bare in the shape of the host's passwords."""
    found = list(reading.passwords_in_message(msg))
    texts = _texts(msg)
    names = {name for written in texts for name in _NAMED.findall(written)}
    for written in texts:
        # a notice URL (pbem.mail.record) holds its target's token: a secret like a password
        for value in [
            *redaction.keyed_passwords(written),
            *shaped_passwords(written),
            *_NOTICE_URL.findall(written),
        ]:
            if value not in found and value not in names:
                found.append(value)
    return found


def _leaks(raw: bytes, secrets: list[str]) -> bool:
    msg = reading.parse(limits.bounded(raw, len(raw)))  # the headers cut as for reading: no bomb here
    long_ones = [s for s in secrets if len(s) >= redaction.MIN_LITERAL]
    if any(s.encode() in raw for s in long_ones):
        return True
    for written in _texts(msg):
        if redaction.keyed_passwords(written) or any(s in written for s in long_ones):
            return True
    return False


def redact_message(raw: bytes, msg: reading.EmailMessage, secrets: list[str]) -> bytes:
    """The message as it may be archived (see the module)."""
    wanted = sorted({*secrets, *secrets_in_message(msg)}, key=len, reverse=True)
    if not wanted and not any(redaction.keyed_passwords(t) for t in _texts(msg)):
        return raw
    changed = False
    for name in _WRITTEN_HEADERS:
        value = reading.header(msg, name)
        clean = redaction.redact_text(value, wanted, MARK)
        if clean != value:
            del msg[name]
            msg[name] = " ".join(clean.split())
            changed = True
    for part in msg.walk():
        if part.is_multipart():
            continue
        body = reading.decode_part(part)
        clean = redaction.redact_text(body, wanted, MARK)
        if clean != body:
            del part["Content-Transfer-Encoding"]
            part.set_payload(clean, "utf-8")
            changed = True
    out = msg.as_bytes(policy=policy.SMTP) if changed else raw
    for secret in wanted:
        if len(secret) >= redaction.MIN_LITERAL:
            out = out.replace(secret.encode(), MARK.encode())
    if not _leaks(out, wanted):
        return out
    return _headers_only(raw, wanted)


def _headers_only(raw: bytes, secrets: list[str]) -> bytes:
    """The headers that hold no password, and a note instead of the body."""
    msg = reading.parse(limits.split(raw)[0] + b"\r\n\r\n")
    kept = []
    for name, _value in msg.items():
        value = reading.header(msg, name)
        if name.lower().startswith("content-") or redaction.redact_text(value, secrets) != value:
            continue
        kept.append(f"{name}: {' '.join(value.split())}".encode("utf-8", "replace"))
    return b"\r\n".join(kept) + b"\r\n\r\n" + _WITHHELD_BODY
