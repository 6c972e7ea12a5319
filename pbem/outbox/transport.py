"""Handing a finished message to the world: an SMTP server, or an outbox Maildir.

``smtp://user@host:port`` (plain; add ``?starttls=1`` to upgrade), ``smtps://user@host:port`` (TLS from
the start); ``&cafile=/path/ca.pem`` trusts a private CA. Certificates are always verified. The user is in
the URL, the password only in ``$PBEM_SMTP_PASSWORD``.

A transport raises :class:`DeliveryError` when a message was not accepted, saying whether trying again
later may help (a 4xx reply, a server down) or not (a 5xx reply). One connection serves a whole run and
is reopened after an error, since a server that said 421 has closed it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import mailbox
import os
import re
import smtplib
import ssl
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path
from types import TracebackType
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from pbem.intake import addresses
from pbem.outbox.errors import MailError, masked_url
from pbem.outbox.settings import SMTP_PASSWORD_ENV, MailSettings

log = logging.getLogger("pbem.mail")


class DeliveryError(Exception):
    """The message was not accepted. ``permanent``: the server refused it for good (5xx).
    ``server_down``: the fault is the server's or the settings' (unreachable, 421, login or sender
    refused), so the other mails of this run would fail the same way."""

    def __init__(self, message: str, *, permanent: bool, server_down: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.server_down = server_down


class Transport(Protocol):
    def __enter__(self) -> Transport: ...

    def __exit__(self, *exc: object) -> None: ...

    def deliver(self, sender: str, recipient: str, message: bytes) -> None:
        """Return only once the message is accepted; raise :class:`DeliveryError` otherwise."""


class MaildirTransport:
    """Drop each message into a Maildir (``new/``), for a local MDA or for looking at."""

    #: a message delivered again (after a crash, before the outbox marked it sent) is taken once: its
    #: file is named from its Message-ID
    idempotent = True

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __enter__(self) -> MaildirTransport:
        try:
            # mailbox's own create=True checks, then makes the folders, and fails when another tick made
            # them in between; makedirs with exist_ok is safe for any number of ticks starting together.
            for sub in ("tmp", "new", "cur"):
                (self.path / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
            self._box = mailbox.Maildir(self.path, create=False)
            # what was here when this run began, by message name: a file in new/ then, gone from it
            # since, was read (moved to cur/ with flags) and is held all the same
            self._seen = {
                name.split(":", 1)[0] for sub in ("new", "cur") for name in os.listdir(self.path / sub)
            }
        except OSError as exc:
            raise MailError(f"cannot open the outbox Maildir {self.path}: {exc.strerror}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._box.close()

    def deliver(self, sender: str, recipient: str, message: bytes) -> None:
        # A crash between the file landing here and the outbox marking the mail sent makes the next run
        # send it again; the file's name comes from the Message-ID (fixed per dedupe key), so the second
        # delivery finds the first and adds nothing.
        unique = _unique_name(message)
        # a Maildir file has the system's line ends (LF); the regex does what bytes.replace does here in
        # half its time (0.08 against 0.16 ms for an 88 KB report mail: replace's two-byte search is slow)
        message = _CRLF.sub(b"\n", message)
        try:
            if unique is None:
                self._box.add(message)
            elif not self._holds(unique):
                staged = self.path / "tmp" / f"{unique}.{os.getpid()}"
                staged.write_bytes(message)
                os.replace(staged, self.path / "new" / unique)
                self._seen.add(unique)  # read and moved to cur/ later in this run, it is still held
        except OSError as exc:
            raise DeliveryError(
                f"cannot write to {self.path}: {exc.strerror}", permanent=False, server_down=True
            ) from None

    def _holds(self, unique: str) -> bool:
        """Whether a message of this name is in ``new/``, or was here when the run began (in ``cur/``,
        read, with flags; or in ``new/`` and read since). One listing a run, not one per message."""
        return unique in self._seen or (self.path / "new" / unique).exists()


_CRLF = re.compile(b"\r\n")
#: the first Message-ID field of a message's head; group 2 is a folded value's continuation
_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*([^\r\n]*)\r?\n([ \t])?", re.IGNORECASE | re.MULTILINE)
#: a line the parser does not take for a field or its continuation (its headerRE), or an empty one: the
#: parser's head ends there
_NOT_A_FIELD = re.compile(rb"^(?:(?!From |[\x21-\x39\x3b-\x7e]*:|[\t ])[^\r\n]|\r?\n)", re.MULTILINE)


def _unique_name(message: bytes) -> str | None:
    """A Maildir file name derived from the message's Message-ID, or ``None`` when it has none."""
    message_id = _message_id(_head(message))
    if not message_id:
        return None
    return "pbem-" + hashlib.sha256(message_id.strip().encode("utf-8", "replace")).hexdigest()[:40]


def _head(message: bytes) -> bytes:
    """The message up to its first empty line (with one line break of it), or all of it."""
    # The LF-LF search is bounded by the CRLF-CRLF one: unbounded, it ran through the whole of a CRLF
    # message (0.08 ms a report mail) to find nothing.
    crlf = message.find(b"\r\n\r\n")
    lf = message.find(b"\n\n", 0, crlf if crlf >= 0 else len(message))
    ends = [at for at in (crlf, lf) if at >= 0]
    return message[: min(ends) + 2] if ends else message


def _message_id(head: bytes) -> str | None:
    """The value of ``head``'s Message-ID as the email package's compat32 header parser gives it.

    The common case, a head of ASCII lines ending in CRLF or LF whose Message-ID is on one line, is
    read by one regex: the parser read the whole head into header objects (0.25 ms a report mail) for
    this one value. Anything else (a folded value, bytes beyond ASCII, a bare CR that the parser takes
    for a line end) goes to the parser, so the name a message gets is the one it always got."""
    found = _MESSAGE_ID.search(head)
    if (
        found is not None
        and found.group(2) is None  # a folded value is left to the parser
        and head.isascii()
        and head.count(b"\r") == head.count(b"\r\n")
        and _NOT_A_FIELD.search(head, 0, found.start()) is None
    ):
        return found.group(1).decode("ascii")
    value = BytesHeaderParser(policy=policy.compat32).parsebytes(head).get("Message-ID")
    return None if value is None else str(value)


class SmtpTransport:
    """Deliver through an SMTP server, reusing one connection while it works."""

    def __init__(self, url: str, password: str | None = None, *, timeout: float = 30.0) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise MailError(
                f"not an SMTP URL: {masked_url(url)!r} (expected smtp://[user@]host[:port] or smtps://…)"
            )
        if parts.password is not None:
            raise MailError(f"the SMTP URL holds a password: remove it and set ${SMTP_PASSWORD_ENV}")
        query = parse_qs(parts.query)
        self.tls = parts.scheme == "smtps"
        self.starttls = query.get("starttls", ["0"])[0].lower() in ("1", "yes", "true")
        # a private CA (a host's own relay, the tests' server); certificates are always verified
        self.cafile = query.get("cafile", [None])[0]
        if self.cafile is not None and not Path(self.cafile).is_file():
            raise MailError(f"the SMTP URL's cafile {self.cafile} does not exist")
        self.host = parts.hostname
        try:
            self.port = parts.port or (465 if self.tls else 587 if self.starttls else 25)
        except ValueError:
            raise MailError(f"bad port in SMTP URL {masked_url(url)!r}") from None
        self.user = unquote(parts.username) if parts.username else None
        if self.user and not password:
            raise MailError(
                f"the SMTP URL names user {self.user!r}: set ${SMTP_PASSWORD_ENV} to its password"
            )
        self._password = password
        if self.user and not (self.tls or self.starttls):
            # the server would see the password in clear, and so would anyone on the way
            log.warning(
                "SMTP to %s:%d logs in as %r without TLS: use smtps:// or add ?starttls=1 to the URL",
                self.host,
                self.port,
                self.user,
            )
        self.timeout = timeout
        self._conn: smtplib.SMTP | None = None

    def __repr__(self) -> str:
        return f"SmtpTransport({'smtps' if self.tls else 'smtp'}://{self.host}:{self.port})"

    def __enter__(self) -> SmtpTransport:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close()

    def _open(self) -> smtplib.SMTP:
        context = ssl.create_default_context(cafile=self.cafile)
        conn: smtplib.SMTP
        if self.tls:
            conn = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout, context=context)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            conn.ehlo()
            if self.starttls:
                conn.starttls(context=context)
                conn.ehlo()
            if self.user:
                conn.login(self.user, self._password or "")
        except BaseException:
            _quietly_close(conn)
            raise
        return conn

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.quit()
            except (smtplib.SMTPException, OSError):
                _quietly_close(self._conn)
            self._conn = None

    def deliver(self, sender: str, recipient: str, message: bytes) -> None:
        if not sender.isascii() or any(c.isspace() or c in "<>," for c in sender):
            # the host's own address (pbem@localhost, its default, is fine for a local relay)
            raise DeliveryError(
                f"the host's From address {sender!r} cannot be sent from: set [mail] from to a plain "
                "ASCII address",
                permanent=False,
                server_down=True,
            )
        try:
            recipient = addresses.normalise(recipient)
        except addresses.AddressError as exc:  # this mail can never go: the others must still
            raise DeliveryError(f"cannot send to this address: {exc}", permanent=True) from None
        try:
            self._deliver(sender, recipient, message)
        except DeliveryError:
            raise
        except Exception as exc:  # anything else smtplib raises is about this one mail: fail it, not the run
            self._drop()  # the conversation may be half-way through a command
            raise DeliveryError(
                f"this mail could not be handed to the server: {type(exc).__name__}: {_clip(exc)}",
                permanent=True,
            ) from None

    def _deliver(self, sender: str, recipient: str, message: bytes) -> None:
        try:
            if self._conn is None:
                self._conn = self._open()
            refused = self._conn.sendmail(sender, [recipient], message)
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = next(iter(exc.recipients.values()), (550, b"refused"))
            raise self._failed(code, _text(text)) from None
        except smtplib.SMTPAuthenticationError as exc:
            # wrong credentials do not mend themselves, but a fixed setting should deliver the backlog
            self._drop()
            raise DeliveryError(
                f"SMTP login refused: {exc.smtp_code} {_text(exc.smtp_error)}",
                permanent=False,
                server_down=True,
            ) from None
        except smtplib.SMTPSenderRefused as exc:
            # refusing our sender (530 "authenticate first", 550 "not your domain") is about the host's
            # settings, which a person can fix, not about this mail: it waits, it is not given up
            raise self._failed(exc.smtp_code, _text(exc.smtp_error), about_mail=False) from None
        except smtplib.SMTPResponseException as exc:
            raise self._failed(exc.smtp_code, _text(exc.smtp_error)) from None
        except (smtplib.SMTPException, OSError) as exc:
            self._drop()
            raise DeliveryError(
                f"SMTP server {self.host}:{self.port} unreachable: {exc}", permanent=False, server_down=True
            ) from None
        if refused:  # one recipient only, so a partial refusal is a refusal
            code, text = next(iter(refused.values()))
            raise self._failed(code, _text(text))

    def _failed(self, code: int, text: str, *, about_mail: bool = True) -> DeliveryError:
        if code == 421 or code < 400:  # the server hangs up after 421
            self._drop()
        elif self._conn is not None:
            try:
                self._conn.rset()
            except (smtplib.SMTPException, OSError):
                self._drop()
        return DeliveryError(
            f"SMTP {code} {text}",
            permanent=about_mail and 500 <= code < 600,
            server_down=code == 421 or not about_mail,
        )

    def _drop(self) -> None:
        if self._conn is not None:
            _quietly_close(self._conn)
            self._conn = None


def _quietly_close(conn: smtplib.SMTP) -> None:
    with contextlib.suppress(OSError):
        conn.close()


def _clip(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def transport_from(settings: MailSettings) -> Transport:
    """The transport the settings name: SMTP if a URL is set, else the outbox Maildir."""
    if settings.smtp_url:
        return SmtpTransport(settings.smtp_url, settings.smtp_password)
    if settings.outbox_dir:
        return MaildirTransport(settings.outbox_dir)
    raise MailError(
        "no way to send mail: give --smtp URL or --outbox DIR (or [mail] smtp / outbox in pbem.toml)"
    )
