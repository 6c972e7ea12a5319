"""Hardening (issue 20): inbound tries and errors; passwords cleaned from the raw forms already stored.

``inbound.attempts`` counts the tries of a message and is its claim's generation, ``inbound.error`` the
last try's error (:mod:`pbem.mail.poison`). Rows stored by older code may hold a plaintext password
(order mails in JSON or flow YAML, a quoted ``"password":`` key, the password in the Subject, a YAML
escape): every ``inbound.raw_z`` and ``submission.raw_z`` is redacted again.

The redaction below is a frozen copy of pbem's as it stood when this revision was written
(``pbem.mail.redaction``, ``pbem.intake.redaction`` and what they used of ``pbem.mail.reading`` and
``pbem.mail.limits``), cut to what cleaning stored rows needs. A revision is a snapshot of its day:
run on an old database years later it must do its own day's work, not whatever the application's
redaction has become, and it must not break when that code moves or changes. Its rules: every part of
a mail and its written headers are read (HTML without its tags); a value under a ``password`` key, in
any YAML or JSON shape, and every copy of it elsewhere, is replaced; if a password still shows
afterwards, only the headers that hold none are kept. A stored submission's text is redacted the same
way.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import html
import re
import zlib
from email import message_from_bytes, policy
from email.message import Message

import sqlalchemy as sa
import yaml
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

#: a password key: quoted or not, then its colon; the value starts after any blanks (or on the next line)
_KEY = re.compile(r"""(?i)(["']?)password\1[ \t]*:[ \t]*(?:\r?\n[ \t]*)?""")
#: the mail reader's own reading of a password: a whole line ``password: value``
_LINE = re.compile(r"^\s*password\s*:\s*(.*?)\s*$", re.MULTILINE | re.IGNORECASE)
_TEXT_MARK, _MAIL_MARK = "[redacted]", "[password redacted]"
#: passwords shorter than this are not replaced as plain text elsewhere: "ab" would shred the record
_MIN_LITERAL = 4
#: headers a password is looked for in (the ones a mail program lets a person write)
_WRITTEN_HEADERS = ("Subject", "Comments", "Keywords", "X-Orders")
_MAX_FIELD_BYTES, _MAX_FIELDS, _MAX_HEADER_BYTES = 4000, 200, 64_000
_WITHHELD_BODY = b"[body withheld: it held the password in a form that could not be redacted]\r\n"


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("inbound")}
    with op.batch_alter_table("inbound") as batch:
        if "attempts" not in columns:
            batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        if "error" not in columns:
            batch.add_column(sa.Column("error", sa.String(length=300), nullable=True))
    _clean_stored(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("error")
        batch.drop_column("attempts")


def _clean_stored(conn: sa.Connection) -> None:
    # one row in memory at a time: an inbound copy may be two megabytes
    for row_id in conn.execute(sa.text("SELECT id FROM inbound")).scalars().all():
        blob = conn.execute(sa.text("SELECT raw_z FROM inbound WHERE id = :id"), {"id": row_id}).scalar_one()
        if not blob:
            continue
        try:
            raw = zlib.decompress(blob)
        except zlib.error:
            continue
        try:
            clean = _redact_message(raw)
        except Exception:  # a message the email package cannot write back: nothing of it is kept
            clean = b"[message withheld: it could not be redacted]\r\n"
        if clean != raw:
            conn.execute(
                sa.text("UPDATE inbound SET raw_z = :z WHERE id = :id"),
                {"z": zlib.compress(clean, 6), "id": row_id},
            )
    for row_id in conn.execute(sa.text("SELECT id FROM submission")).scalars().all():
        blob = conn.execute(
            sa.text("SELECT raw_z FROM submission WHERE id = :id"), {"id": row_id}
        ).scalar_one()
        try:
            stored = zlib.decompress(blob).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):
            continue
        clean_text = _redact_text(stored)
        if clean_text != stored:
            conn.execute(
                sa.text("UPDATE submission SET raw_z = :z WHERE id = :id"),
                {"z": zlib.compress(clean_text.encode("utf-8"), 6), "id": row_id},
            )


# ------------------------------------------------------------------------------------- one mail


def _split(raw: bytes) -> tuple[bytes, bytes, bytes]:
    found = re.search(rb"\r?\n\r?\n", raw)
    if found is None:
        return raw, b"", b""
    return raw[: found.start()], raw[found.start() : found.end()], raw[found.end() :]


def _parse(raw: bytes) -> Message:
    """The message as the email package reads it, an overlong header block cut to bounds first: the
    package's header parser is far from linear in some inputs."""
    head, separator, body = _split(raw)
    if len(head) > _MAX_FIELD_BYTES:
        newline = b"\r\n" if b"\r\n" in head[:2000] else b"\n"
        kept: list[bytes] = []
        total = 0
        for field in re.split(rb"\r?\n(?![ \t])", head[: _MAX_HEADER_BYTES * 4])[:_MAX_FIELDS]:
            field = field[:_MAX_FIELD_BYTES]
            if total + len(field) > _MAX_HEADER_BYTES:
                break
            kept.append(field)
            total += len(field) + len(newline)
        head = newline.join(kept)
        separator = separator or newline + newline
    return message_from_bytes(head + separator + body, policy=policy.default)


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a malformed header counts as absent
        return ""
    return "" if value is None else str(value).strip()


def _decode(part: Message) -> str:
    """A text part's content, whatever its declared charset says (UTF-8, then Latin-1, when it lies)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    text = None
    for charset in (part.get_content_charset() or "utf-8", "utf-8"):
        try:
            text = payload.decode(charset)
            break
        except (LookupError, UnicodeError):
            continue
    text = payload.decode("latin-1") if text is None else text
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")


def _texts(msg: Message) -> list[str]:
    """The written headers, then every part's text."""
    texts = [_header(msg, name) for name in _WRITTEN_HEADERS]
    for part in msg.walk():
        if not part.is_multipart():
            body = _decode(part)
            if part.get_content_subtype() == "html":
                body = html.unescape(re.sub(r"<[^>]*>", "\n", body))
            texts.append(body)
    return texts


def _secrets(msg: Message) -> set[str]:
    texts = _texts(msg)
    found: set[str] = set()
    for text in [texts[0], *texts[len(_WRITTEN_HEADERS) :]]:  # the line reading: the Subject and parts
        for match in _LINE.finditer(text):
            value = match.group(1).split(" #")[0].strip().strip("'\"")
            if value:
                found.add(value)
    for text in texts:
        found.update(_keyed(text))
    return found


def _leaks(raw: bytes, secrets: list[str]) -> bool:
    long_ones = [s for s in secrets if len(s) >= _MIN_LITERAL]
    if any(s.encode() in raw for s in long_ones):
        return True
    return any(_keyed(t) or any(s in t for s in long_ones) for t in _texts(_parse(raw)))


def _redact_message(raw: bytes) -> bytes:
    msg = _parse(raw)
    wanted = sorted(_secrets(msg), key=len, reverse=True)
    if not wanted:
        return raw
    changed = False
    for name in _WRITTEN_HEADERS:
        value = _header(msg, name)
        clean = _redact_text(value, wanted, _MAIL_MARK)
        if clean != value:
            del msg[name]
            msg[name] = " ".join(clean.split())
            changed = True
    for part in msg.walk():
        if part.is_multipart():
            continue
        body = _decode(part)
        clean = _redact_text(body, wanted, _MAIL_MARK)
        if clean != body:
            del part["Content-Transfer-Encoding"]
            part.set_payload(clean, "utf-8")
            changed = True
    out = msg.as_bytes(policy=policy.SMTP) if changed else raw
    for secret in wanted:
        if len(secret) >= _MIN_LITERAL:
            out = out.replace(secret.encode(), _MAIL_MARK.encode())
    if not _leaks(out, wanted):
        return out
    # the headers that hold no password, and a note instead of the body
    head = message_from_bytes(_split(raw)[0] + b"\r\n\r\n", policy=policy.default)
    kept = []
    for name, _value in head.items():
        value = _header(head, name)
        if name.lower().startswith("content-") or _redact_text(value, wanted) != value:
            continue
        kept.append(f"{name}: {' '.join(value.split())}".encode("utf-8", "replace"))
    return b"\r\n".join(kept) + b"\r\n\r\n" + _WITHHELD_BODY


# ------------------------------------------------------------------------------------- one text


def _value_end(text: str, start: int) -> int:
    """Where the value starting at ``start`` ends: after its closing quote, or at the first
    ``,`` ``}`` ``]`` line break or `` #`` of a plain scalar."""
    if start >= len(text):
        return start
    quote = text[start]
    if quote == '"':
        at = start + 1
        while at < len(text) and text[at] not in '"\n':
            at += 2 if text[at] == "\\" else 1
        return min(at + 1, len(text))
    if quote == "'":
        at = start + 1
        while at < len(text):
            if text[at] == "'":
                if text[at + 1 : at + 2] == "'":  # '' is a quote inside a single-quoted scalar
                    at += 2
                    continue
                return at + 1
            if text[at] == "\n":
                return at
            at += 1
        return at
    at = start
    while at < len(text) and text[at] not in ",}]\r\n":
        if text[at] == "#" and at > start and text[at - 1] in " \t":
            break
        at += 1
    return at


def _spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for found in _KEY.finditer(text):
        start = found.end()
        if any(text.startswith(mark, at) for mark in (_TEXT_MARK, _MAIL_MARK) for at in (start, start + 1)):
            continue  # redacted already
        end = _value_end(text, start)
        while end > start and text[end - 1] in " \t":  # the blanks before a comment stay
            end -= 1
        if text[start:end].strip():
            spans.append((start, end))
    return spans


def _keyed(text: str) -> list[str]:
    """Every value written under a ``password`` key, as YAML (or JSON) reads it, and as written."""
    found: list[str] = []
    for start, end in _spans(text):
        written = text[start:end].strip()
        candidates = [written.strip("'\"")]
        try:
            read = yaml.safe_load(written)
        except yaml.YAMLError:
            read = None
        if isinstance(read, str | int | float):
            candidates.append(str(read))
        for value in candidates:
            if value and value not in found:
                found.append(value)
    return found


def _redact_text(text: str, known: list[str] | tuple[str, ...] = (), mark: str = _TEXT_MARK) -> str:
    """``text`` with the value of every ``password`` key replaced, and every copy of the passwords it
    names (and of ``known`` ones) replaced too."""
    secrets = sorted({*_keyed(text), *(k for k in known if k)}, key=len, reverse=True)
    parts, last = [], 0
    for start, end in _spans(text):
        quote = text[start] if text[start] in "'\"" else ""
        parts += [text[last:start], f"{quote}{mark}{quote}"]
        last = end
    out = "".join([*parts, text[last:]])
    for secret in secrets:
        if len(secret) >= _MIN_LITERAL:
            out = out.replace(secret, mark)
    return out
