"""Reading one inbound message: who sent it, whether a person did, its key, and the orders in it.

Nothing here touches the database: every function takes the raw bytes or the parsed message and returns
plain values, so the rules for quoted replies, signatures, HTML-only mail and odd charsets are tested on
their own.
"""

from __future__ import annotations

import codecs
import email
import html
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, Message
from email.utils import getaddresses

from pbem.core.codec import sha256_hex
from pbem.intake import addresses
from pbem.mail import commands
from pbem.mail import extract as finder
from pbem.mail.extract import html_text

#: the characters of a part read for orders or a command: an order file is a few KB, and what follows in
#: a longer text is an earlier message quoted; finding where that begins costs time in proportion to
#: the text (a 1 MB body took 3 s), so only this much is looked at (the archive keeps the whole)
MAX_TEXT = 64_000
#: attachments that may hold orders
ORDER_SUFFIXES = (".yaml", ".yml", ".txt")
ORDER_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")

#: senders that are machines by name (RFC 3834 section 2 and long practice)
_MACHINE_LOCALPARTS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply", "donotreply")

#: a line that makes a text look like orders or a command envelope
_ENVELOPE_LINE = re.compile(
    r"^\s*(game|player|password|orders|turn|command)\s*:", re.MULTILINE | re.IGNORECASE
)
_PASSWORD_LINE = re.compile(r"^\s*password\s*:\s*(.*?)\s*$", re.MULTILINE | re.IGNORECASE)
#: "On Mon, 3 May 2027, Ann <ann@example.org> wrote:" before a quoted block
_ATTRIBUTION = re.compile(r"^(on\s.+wrote:|.+\s(wrote|a écrit|schrieb)\s*:)\s*$", re.IGNORECASE)


def parse(raw: bytes) -> EmailMessage:
    """Parse raw RFC 5322 bytes; never raises (defects are recorded on the message, not thrown)."""
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)  # policy.default always builds EmailMessage
    return msg


def header(msg: Message, name: str) -> str:
    """A header as text (:func:`valid`), or ``""`` when absent or too broken to decode."""
    try:
        value = msg.get(name)
    except Exception:  # a malformed header must not stop the run: treat it as absent
        return ""
    return "" if value is None else valid(str(value).strip())


#: a lone surrogate: what a byte the email package could not decode becomes (surrogateescape), and what
#: UTF-7 or UTF-16 may spell; no encoder writes one, so a reply quoting it could never be sent
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: every text taken from a mail is made valid
    before any command sees it, so whatever a reply repeats of it can be written out (issue 33)."""
    return _SURROGATE.sub("\ufffd", text)


def sender(msg: Message) -> str | None:
    """The one address in From, lower-cased, or ``None`` when there is not exactly one valid address.

    Replies go to this address only: never Reply-To, Cc or an address written in the body, so a message
    cannot make the host mail a third party.
    """
    pairs = [addr for _name, addr in getaddresses([header(msg, "From")]) if addr]
    if len(pairs) != 1:
        return None
    try:
        return addresses.normalise(pairs[0])
    except addresses.AddressError:
        return None


def message_key(raw: bytes, msg: Message) -> str:
    """Message-ID plus a SHA-256 of what a delivery does not change (From, Date, Subject, the body).

    Trace headers (Received, Delivered-To, Return-Path) differ between two mailboxes holding the same
    message, and line endings differ between IMAP and a Maildir file, so both are left out of the digest;
    the Message-ID alone is not trusted, since a careless client may reuse one for different mail.
    """
    body = _body_bytes(raw).replace(b"\r\n", b"\n").rstrip()
    stable = "\n".join(header(msg, h) for h in ("From", "Date", "Subject", "Message-ID")).encode()
    digest = sha256_hex(stable + b"\n\n" + body)
    # printable only: a NUL or a line break is no part of an id, and PostgreSQL refuses NUL in text
    message_id = "".join(c for c in header(msg, "Message-ID") if c.isprintable()) or "<no-message-id>"
    if len(message_id) > 300:  # the key column holds 400 characters
        message_id = "<" + sha256_hex(message_id)[:32] + ">"
    return f"{message_id} {digest}"


def _body_bytes(raw: bytes) -> bytes:
    for sep in (b"\r\n\r\n", b"\n\n"):
        at = raw.find(sep)
        if at >= 0:
            return raw[at + len(sep) :]
    return b""


def automated_reason(msg: Message, own_addresses: tuple[str, ...] = (), loop_tag: str = "") -> str | None:
    """Why this message must not be answered (our own mail, a bounce, an auto-reply), or ``None``.

    >>> automated_reason(parse(b"From: a@example.org\\nAuto-Submitted: auto-replied\\n\\nout of office"))
    'auto-reply (Auto-Submitted: auto-replied)'
    """
    if loop_tag and loop_tag.lower() in {h.lower() for h in _all(msg, "X-Loop")}:
        return "our own mail (X-Loop)"
    if header(msg, "X-PBEM-Host"):
        return "mail from a pbem host (X-PBEM-Host)"
    frm = sender(msg)
    if frm is not None and frm in {a.lower() for a in own_addresses}:
        return "our own mail (From is the host's address)"
    auto = header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"auto-reply (Auto-Submitted: {auto})"
    for name in ("List-Id", "List-Unsubscribe", "List-Post"):  # mailing-list mail (RFC 3834 §2, RFC 2369)
        if header(msg, name):
            return f"mailing-list mail ({name})"
    precedence = header(msg, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"bulk mail (Precedence: {precedence})"
    if header(msg, "X-Autoreply") or header(msg, "X-Autorespond"):
        return "auto-reply (X-Autoreply)"
    if msg.get_content_type() == "multipart/report":
        return "bounce (a delivery report)"
    if "Return-Path" in msg and header(msg, "Return-Path") in ("<>", ""):
        return "bounce (empty Return-Path)"
    if frm is not None and frm.split("@")[0] in _MACHINE_LOCALPARTS:
        return f"bounce (sent by {frm.split('@')[0]})"
    return None


def _all(msg: Message, name: str) -> list[str]:
    try:
        return [str(v).strip() for v in msg.get_all(name) or []]
    except Exception:  # a broken header counts as absent
        return []


# ----------------------------------------------------------------------------------------- the text


#: the codecs a part's text may be decoded with: text encodings (by the prefix of the name
#: :func:`codecs.lookup` gives them). Python knows others by a charset's name too: ``punycode`` (its
#: decoder is quadratic: 300 KB took 36 s), ``rot13``, ``zlib_codec``, ``base64_codec``, ``unicode_escape``…
#: which are no charset of mail; a part that names one is read as UTF-8.
_TEXT_CODECS = (
    "utf-", "ascii", "latin", "iso8859", "cp", "windows", "mac-", "koi8", "kz1048", "ptcp154", "hp-roman",
    "tis-620", "gb2312", "gbk", "gb18030", "hz", "big5", "shift_jis", "euc", "iso2022", "johab",
)  # fmt: skip


def text_codec(charset: str | None) -> str | None:
    """The codec to decode a part declared ``charset`` with, or ``None`` when it names no text codec."""
    try:
        name = codecs.lookup(charset or "utf-8").name
    except (LookupError, ValueError, TypeError):
        return None
    return name if name.startswith(_TEXT_CODECS) else None


def decode_part(part: Message) -> str:
    """A text part's content as ``str``, whatever its declared charset says; always valid text.

    An unknown, lying or non-text charset (:func:`text_codec`) falls back to UTF-8 and then Latin-1
    (which never fails), so a player whose client mislabels the mail still gets the orders read, or a
    clear error about their content.
    """
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    for candidate in (text_codec(part.get_content_charset()), "utf-8"):
        if candidate is None:
            continue
        try:
            return valid(_normalise(payload.decode(candidate)))
        except UnicodeError:
            continue
    return _normalise(payload.decode("latin-1"))


def _normalise(text: str) -> str:
    # mail clients put no-break spaces into indentation, and YAML cannot read those
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")


def strip_reply(text: str) -> str:
    """Drop quoted lines (``>``), the "… wrote:" line before them, and everything from a signature
    separator (``-- ``) on; keep the indentation of what is left (YAML needs it).

    >>> strip_reply("game: g\\n\\nOn Monday, host wrote:\\n> turn 3\\n-- \\nAnn")
    'game: g'
    """
    kept: list[str] = []
    for line in text.split("\n"):
        if line.rstrip() == "--":  # the signature separator, "-- " with its space often eaten
            break
        if line.lstrip().startswith(">"):
            while kept and not kept[-1].strip():
                kept.pop()
            if kept and _ATTRIBUTION.match(kept[-1].strip()):
                kept.pop()
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip("\n")


@dataclass(frozen=True)
class Extracted:
    """What a message says: ``text`` (orders or a command), where it came from, or why there is none.
    ``how`` the document was found in a body: ``markers``, ``scan`` (see :mod:`pbem.mail.extract`),
    or ``""`` (an attachment, or a text in which no document could be told apart)."""

    text: str
    origin: str  # "body" | "attachment NAME" | "forwarded message" | ""
    problem: str = ""  # "empty" | ""
    how: str = ""
    #: the number in the mail of each line of ``text`` (``extract.Found.lines``); empty: its own
    lines: tuple[int, ...] = ()

    def as_shown(self) -> str:
        """``text`` with its lines where the mail shows them, so errors count lines as the player does."""
        return finder.as_shown(self.text, self.lines)


def extract(msg: EmailMessage) -> Extracted:
    """The orders (or command) in a message: an order attachment, else the document in the body (its
    plain text, or the text of an HTML-only body), else one in a forwarded message.

    An attachment named ``*.yaml``/``*.yml``/``*.txt`` (or typed as YAML) wins when it looks like orders,
    since players attach files and write prose in the body; the body wins when only it looks like
    orders. A body in which no document can be told apart is passed on whole (quotes and signature
    off), so the answer can point at the line that stopped the reading.
    """
    attachments: list[tuple[str, str]] = []
    forwarded: list[EmailMessage] = []
    for part in msg.walk():
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()
            forwarded += [
                m for m in (inner if isinstance(inner, list) else [inner]) if isinstance(m, Message)
            ]
        if part.is_multipart():
            continue
        name = part.get_filename() or ""
        if name.lower().endswith(ORDER_SUFFIXES) or part.get_content_type() in ORDER_TYPES:
            attachments.append((name or part.get_content_type(), decode_part(part)[:MAX_TEXT].strip("\n")))
    text = body_text(msg)
    for name, content in attachments:
        if _ENVELOPE_LINE.search(content):
            return Extracted(content, f"attachment {name}")
    words = commands.words()
    is_forward = finder.FORWARD_SUBJECT.match(header(msg, "Subject")) is not None
    found = finder.find(text, words, forwarded=is_forward)
    if found is not None:
        return Extracted(found.text, "body", how=found.how, lines=found.lines)
    for inner in forwarded:  # a message forwarded as an attachment (Thunderbird, Apple Mail, Outlook)
        in_forward = finder.find(body_text(inner), words, forwarded=True)  # type: ignore[arg-type]
        if in_forward is not None:
            return Extracted(in_forward.text, "forwarded message", how=in_forward.how, lines=in_forward.lines)
    rest = finder.own_part(text)  # never the earlier message: it holds the host's own template
    if rest.strip():
        return Extracted(rest, "body")
    for name, content in attachments:
        if content.strip():
            return Extracted(content, f"attachment {name}")
    return Extracted("", "", "empty")


def body_text(msg: EmailMessage) -> str:
    """The text of a message's body: its plain-text part, else the text of its HTML part."""
    plain = msg.get_body(preferencelist=("plain",))
    if plain is not None:
        text = decode_part(plain)[:MAX_TEXT]
        if plain.get_param("format", "", header="content-type").lower() == "flowed":
            delsp = plain.get_param("delsp", "", header="content-type").lower() == "yes"
            return unflow(text, delsp=delsp)
        return text
    rich = msg.get_body(preferencelist=("html",))
    return html_text(decode_part(rich)[: MAX_TEXT * 2])[:MAX_TEXT] if rich is not None else ""


def unflow(text: str, *, delsp: bool = False) -> str:
    """A ``format=flowed`` text (RFC 3676) as its writer wrote it: soft breaks (a line ending in a
    space) joined with the next line of the same quote depth, space-stuffing taken off. Thunderbird
    and Apple Mail send flowed text and break long lines, a template's comment among them.

    >>> unflow("# a long \\ncomment\\n   - bid: 4")
    '# a long comment\\n  - bid: 4'
    """
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (after the quote marks, RFC 3676 §4.5)
        soft = content.endswith(" ") and content != "-- "
        if pending is not None and depth == pending_depth:
            content = pending + content
        elif pending is not None:
            out.append(">" * pending_depth + (" " if pending_depth else "") + pending)
        pending = None
        if soft:
            pending, pending_depth = (content[:-1] if delsp else content), depth
            continue
        out.append(">" * depth + (" " if depth else "") + content)
    if pending is not None:
        out.append(">" * pending_depth + (" " if pending_depth else "") + pending)
    return "\n".join(out)


def password_in(text: str) -> str | None:
    """The password an envelope carries (quotes removed), for redaction; ``None`` if there is none."""
    found = _PASSWORD_LINE.search(text)
    if not found:
        return None
    value = found.group(1).split(" #")[0].strip().strip("'\"")
    return value or None


def passwords_in_message(msg: EmailMessage) -> list[str]:
    """Every password written anywhere in the message: each part (HTML ones with their tags taken
    out), and the subject. What the archive must not keep, whether or not the message was read."""
    found: list[str] = []
    texts = [header(msg, "Subject")]
    for part in msg.walk():
        if not part.is_multipart():
            text = decode_part(part)
            if part.get_content_subtype() == "html":
                text = html.unescape(re.sub(r"<[^>]*>", "\n", text))
            texts.append(text)
    for text in texts:
        for match in _PASSWORD_LINE.finditer(text):
            value = match.group(1).split(" #")[0].strip().strip("'\"")
            if value and value not in found:
                found.append(value)
    return found


def redact(raw: bytes, msg: EmailMessage, secrets: str | list[str] | None) -> bytes:
    """The message with every occurrence of each secret replaced, in every part however encoded.

    A part whose decoded text holds a secret is re-encoded with it replaced; a literal copy in a header
    or an unparsed part is replaced in the bytes. If a secret still shows after that (an encoding we
    cannot rewrite), only the headers are kept.
    """
    wanted = [secrets] if isinstance(secrets, str) else list(secrets or [])
    # a password of one or two letters would shred the archive, and is no secret worth the damage
    wanted = sorted({s for s in wanted if len(s) >= 3}, key=len, reverse=True)
    if not wanted:
        return raw
    mark = "[password redacted]"
    changed = False
    for part in msg.walk():
        if part.is_multipart():  # order attachments may be typed application/octet-stream: read them all
            continue
        text = decode_part(part)
        if any(secret in text for secret in wanted):
            for secret in wanted:
                text = text.replace(secret, mark)
            del part["Content-Transfer-Encoding"]
            part.set_payload(text, "utf-8")
            changed = True
    out = msg.as_bytes(policy=policy.SMTP) if changed else raw
    for secret in wanted:
        out = out.replace(secret.encode(), mark.encode())
    if any(s.encode() in out or any(s in decode_part(p) for p in parse(out).walk()) for s in wanted):
        head = raw.split(b"\n\n", 1)[0].split(b"\r\n\r\n", 1)[0]
        for secret in wanted:
            head = head.replace(secret.encode(), mark.encode())
        out = head + b"\r\n\r\n[body withheld: it held the password in a form that could not be redacted]\r\n"
    return out
