"""Where inbound mail is read from: a Maildir, an mbox file, or an IMAP mailbox.

Each source yields :class:`Incoming` messages (the raw bytes, and how to mark the message read) and
leaves marking to the caller, who does it only once the message is recorded. Marking is a courtesy that
keeps the next run short (IMAP ``\\Seen``, or the message moved to another folder or deleted, as
``[mail] imap_after`` says; a Maildir file moved to ``cur/`` with the ``S`` flag); the
exactly-once guarantee is the database's key table, so an mbox, which has no cheap way to mark a
message, is simply read whole each time.
"""

from __future__ import annotations

import contextlib
import mailbox
import os
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from imapclient import DELETED, SEEN, IMAPClient
from imapclient.exceptions import IMAPClientError

from pbem.outbox.errors import MailError, masked_url
from pbem.outbox.settings import IMAP_PASSWORD_ENV


@dataclass(frozen=True)
class Incoming:
    raw: bytes
    label: str  # where it came from, for people: "maildir:new/1700…", "imap:INBOX/17"
    mark_read: Callable[[], None]


def _nothing() -> None:
    return None


def read_maildir(path: str | Path) -> Iterator[Incoming]:
    """Every message in ``new/``, and in ``cur/`` without the Seen flag, oldest name first."""
    root = Path(path)
    if not (root / "new").is_dir() or not (root / "cur").is_dir():  # said at once, not at the first read
        raise MailError(f"{root} is not a Maildir (it needs the folders new/ and cur/)")
    return _maildir_messages(root)


def _maildir_messages(root: Path) -> Iterator[Incoming]:
    waiting = [(p, "") for p in sorted((root / "new").iterdir())]
    for p in sorted((root / "cur").iterdir()):
        flags = p.name.split(":2,", 1)[1] if ":2," in p.name else ""
        if "S" not in flags:
            waiting.append((p, flags))
    for file, flags in waiting:
        if not file.is_file() or file.name.startswith("."):
            continue
        try:
            raw = file.read_bytes()
        except FileNotFoundError:  # another reader moved it first: it is theirs
            continue
        yield Incoming(raw, f"maildir:{file.parent.name}/{file.name}", _maildir_marker(root, file, flags))


def _maildir_marker(root: Path, file: Path, flags: str) -> Callable[[], None]:
    def mark() -> None:
        unique = file.name.split(":2,", 1)[0]
        target = root / "cur" / f"{unique}:2,{''.join(sorted(set(flags + 'S')))}"
        with contextlib.suppress(FileNotFoundError):  # already moved by another reader
            os.replace(file, target)

    return mark


def read_mbox(path: str | Path) -> Iterator[Incoming]:
    """Every message of an mbox file, read under its lock so a half-delivered message is never seen."""
    file = Path(path)
    if not file.is_file():
        raise MailError(f"no mbox file at {file}")
    box = mailbox.mbox(file, create=False)
    try:
        box.lock()
    except (mailbox.ExternalClashError, OSError) as exc:
        raise MailError(f"the mbox {file} is locked by another program; try again later ({exc})") from None
    try:
        messages = [(key, box.get_bytes(key)) for key in box.iterkeys()]
    finally:
        box.unlock()
        box.close()
    for key, raw in messages:
        yield Incoming(raw, f"mbox:{file.name}#{key}", _nothing)


@dataclass(frozen=True)
class ImapUrl:
    tls: bool
    starttls: bool
    host: str
    port: int
    user: str
    mailbox: str
    cafile: str | None = None  # a private CA to trust; certificates are always verified


def parse_imap_url(url: str) -> ImapUrl:
    """``imap[s]://user@host[:port][/MAILBOX][?starttls=1][&cafile=PATH]``; the mailbox defaults to INBOX."""
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
        raise MailError(f"not an IMAP URL: {masked_url(url)!r} (expected imap[s]://user@host[:port]/MAILBOX)")
    if parts.password is not None:
        raise MailError(f"the IMAP URL holds a password: remove it and set ${IMAP_PASSWORD_ENV}")
    tls = parts.scheme == "imaps"
    try:
        port = parts.port or (993 if tls else 143)
    except ValueError:
        raise MailError(f"bad port in IMAP URL {masked_url(url)!r}") from None
    query = parse_qs(parts.query)
    cafile = query.get("cafile", [None])[0]
    if cafile is not None and not Path(cafile).is_file():
        raise MailError(f"the IMAP URL's cafile {cafile} does not exist")
    starttls = query.get("starttls", ["0"])[0].lower() in ("1", "yes", "true")
    box = unquote(parts.path.lstrip("/")) or "INBOX"
    return ImapUrl(
        tls, starttls, parts.hostname, port, unquote(parts.username), box, query.get("cafile", [None])[0]
    )


# Bodies are fetched this many at a time: one round trip per batch, and a mailbox of thousands of
# waiting messages never sits in memory whole.
FETCH_BATCH = 25


def read_imap(
    url: str, password: str | None, *, timeout: float = 30.0, after: str = "seen", move_to: str | None = None
) -> Iterator[Incoming]:
    """Every unseen message of the mailbox, fetched without setting ``\\Seen`` (that waits for the
    caller's ``mark_read``, after the message is recorded). The mailbox may have any name: IMAPClient
    writes it in IMAP's modified UTF-7 (``INBOX/Входящие`` is ``INBOX/&BBIERQQ+BDQETwRJBDgENQ-``).

    ``after`` is what ``mark_read`` does: ``seen`` flags the message, ``move`` moves it (flagged) to
    the folder ``move_to``, made if missing, ``delete`` deletes it: so the mailbox does not grow."""
    if after == "move" and not move_to:
        raise MailError("moving read mail needs the folder to move it to ([mail] imap_move_to)")
    with _mailbox(url, password, timeout) as (where, conn):
        if after == "move" and move_to and not conn.folder_exists(move_to):
            conn.create_folder(move_to)
        mark = _imap_marker(conn, after, move_to)
        uids = sorted(conn.search(["UNSEEN"]))
        for start in range(0, len(uids), FETCH_BATCH):
            batch = uids[start : start + FETCH_BATCH]
            fetched = conn.fetch(batch, ["BODY.PEEK[]"])
            for uid in batch:
                raw = fetched.get(uid, {}).get(b"BODY[]")
                if not isinstance(raw, bytes):
                    continue  # expunged meanwhile
                yield Incoming(raw, f"imap:{where.mailbox}/{uid}", partial(mark, uid))


@contextlib.contextmanager
def _mailbox(url: str, password: str | None, timeout: float) -> Iterator[tuple[ImapUrl, IMAPClient]]:
    """Logged in, the URL's mailbox selected; every failure a :class:`MailError` in words, and the
    connection closed at the end whatever happened."""
    where = parse_imap_url(url)
    if not password:
        raise MailError(f"set ${IMAP_PASSWORD_ENV} to the password of {where.user} on {where.host}")
    try:
        conn = _imap_login(where, password, timeout)
    except (IMAPClientError, OSError) as exc:
        raise MailError(
            f"cannot log in to IMAP {where.host}:{where.port} as {where.user}: {_clean(exc)}"
        ) from None
    try:
        try:
            conn.select_folder(where.mailbox)
        except IMAPClientError:
            raise MailError(f"IMAP {where.host}: no mailbox {where.mailbox!r}{_known(conn)}") from None
        yield where, conn
    except (IMAPClientError, OSError) as exc:
        raise MailError(f"IMAP {where.host}:{where.port} failed: {_clean(exc)}") from None
    finally:
        with contextlib.suppress(IMAPClientError, OSError):
            conn.logout()


def _imap_login(where: ImapUrl, password: str, timeout: float) -> IMAPClient:
    context = ssl.create_default_context(cafile=where.cafile)
    conn = IMAPClient(where.host, where.port, ssl=where.tls, ssl_context=context, timeout=timeout)
    if not where.tls and where.starttls:
        conn.starttls(context)
    conn.login(where.user, password)
    return conn


def find_in_imap(url: str, password: str | None, token: str, *, wait: float, poll: float = 1.0) -> bool:
    """Whether a message whose ``X-Pbem-Check`` header is ``token`` arrives in the mailbox within
    ``wait`` seconds (``pbem mail test``); a message found is deleted, so no fetch ever reads it.
    Logging in and opening the mailbox fail as :func:`read_imap` does, with the same words."""
    with _mailbox(url, password, 30.0) as (_where, conn):
        deadline = time.monotonic() + wait
        while True:
            found = conn.search(["HEADER", "X-Pbem-Check", token])
            if found:
                _imap_marker(conn, "delete", None)(found[0])
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll)
            conn.noop()  # lets the server tell of mail that arrived since


def find_in_maildir(path: str | Path, token: str, *, wait: float, poll: float = 1.0) -> bool:
    """As :func:`find_in_imap`, for a Maildir: the file holding ``token`` in its head is removed."""
    root = Path(path)
    if not (root / "new").is_dir() or not (root / "cur").is_dir():
        raise MailError(f"{root} is not a Maildir (it needs the folders new/ and cur/)")
    needle = f"X-Pbem-Check: {token}".encode()
    deadline = time.monotonic() + wait
    while True:
        for file in [*(root / "new").iterdir(), *(root / "cur").iterdir()]:
            with contextlib.suppress(OSError):
                if needle in file.read_bytes()[:65536]:
                    file.unlink()
                    return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def _known(conn: IMAPClient) -> str:
    """The mailboxes there are, for the message that names one that is not (their names decoded:
    written as another client shows them, ``INBOX/Входящие``, not ``INBOX/&BBIE…``)."""
    try:
        names = [name for _flags, _sep, name in conn.list_folders()]
    except (IMAPClientError, OSError):
        return ""
    return f"; the mailboxes there are: {', '.join(sorted(names))}" if names else ""


def _imap_marker(conn: IMAPClient, after: str, move_to: str | None) -> Callable[[int], None]:
    """What becomes of a message once recorded: flagged Seen, then moved or deleted if so set. MOVE
    where the server has it (RFC 6851), else COPY, flag Deleted and expunge that message alone (UID
    EXPUNGE, RFC 4315) or, without UIDPLUS, every message flagged Deleted, as a mail client would."""

    def mark(uid: int) -> None:
        # a courtesy: if the connection dropped, the message stays unseen and is a duplicate next time
        with contextlib.suppress(IMAPClientError, OSError):
            conn.add_flags([uid], [SEEN], silent=True)
            if after == "move" and move_to and conn.has_capability("MOVE"):
                conn.move([uid], move_to)
                return
            if after == "move" and move_to:
                conn.copy([uid], move_to)
            if after in ("move", "delete"):
                conn.add_flags([uid], [DELETED], silent=True)
                if conn.has_capability("UIDPLUS"):
                    conn.uid_expunge([uid])
                else:
                    conn.expunge()

    return mark


def _clean(exc: BaseException) -> str:
    if not isinstance(exc, IMAPClientError):  # OSError, SSLError: their str() says it best
        return str(exc)
    text = exc.args[0] if exc.args else exc
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)


def source_for(
    maildir: str | None,
    mbox: str | None,
    imap: str | None,
    imap_password: str | None,
    *,
    after: str = "seen",
    move_to: str | None = None,
) -> Iterator[Incoming]:
    """The one source the options name (exactly one must be given)."""
    given = [name for name, value in (("--maildir", maildir), ("--mbox", mbox), ("--imap", imap)) if value]
    if len(given) != 1:
        raise MailError(
            "give exactly one of --maildir DIR, --mbox FILE, --imap URL (or [mail] imap in pbem.toml)"
        )
    if maildir:
        return read_maildir(maildir)
    if mbox:
        return read_mbox(mbox)
    assert imap is not None
    return read_imap(imap, imap_password, after=after, move_to=move_to)
