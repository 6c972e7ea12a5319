"""``pbem mail test``: a mail setup checked end to end before the first game, each failure said with
what to mend.

One test mail goes out the way every mail will (SMTP, or the outbox Maildir) to the host's own address,
and must then be found where ``pbem mail fetch`` reads (IMAP or a Maildir); it is deleted there, and
carries the host's ``X-Loop``, so no fetch ever answers it. Nothing is written to the database.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid
from pathlib import Path
from urllib.parse import urlsplit

from pbem.intake import addresses
from pbem.mail import sources
from pbem.outbox import transport
from pbem.outbox.errors import MailError
from pbem.outbox.settings import IMAP_PASSWORD_ENV, SMTP_PASSWORD_ENV, MailSettings


@dataclass(frozen=True)
class Check:
    """One line of the answer: what was checked, ``ok``/``FAILED``/``skipped``, and in words what
    happened or what to do."""

    what: str
    outcome: str
    said: str

    @property
    def failed(self) -> bool:
        return self.outcome == "FAILED"


def _test_mail(settings: MailSettings, recipient: str, token: str) -> bytes:
    message = EmailMessage()
    message["From"] = formataddr((settings.from_name, settings.from_addr))
    message["To"] = recipient
    message["Subject"] = f"pbem mail test {token}"
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.from_addr.rpartition("@")[2] or "localhost")
    message["Auto-Submitted"] = "auto-generated"
    message["X-Loop"] = settings.loop_tag
    message["X-Pbem-Check"] = token
    message.set_content(
        "This is a test mail from the pbem host, sent by `pbem mail test`.\n"
        f"It went out as players' mail will; the host's address is {settings.from_addr}.\n"
    )
    return message.as_bytes()


def _sending_advice(error: str, settings: MailSettings) -> str:
    """What to do about a refused or failed delivery, from the words of the failure."""
    low = error.lower()
    if "login refused" in low or "535" in low or "authentication" in low:
        return f"check the user in [mail] smtp and ${SMTP_PASSWORD_ENV}"
    if "certificate" in low:
        return "the server's certificate is not trusted: add &cafile=/path/ca.pem to the SMTP URL"
    if "unreachable" in low:
        return (
            "check the host and port of [mail] smtp, and that this machine may reach it "
            "(587 with ?starttls=1, or smtps:// on 465)"
        )
    if "sender" in low or "530" in low or "553" in low:
        return (
            f"the server does not let this user send as {settings.from_addr}: set [mail] from to its address"
        )
    return "see the server's answer above"


def _reading_advice(error: str) -> str:
    low = error.lower()
    if "certificate" in low:
        return ": the server's certificate is not trusted: add &cafile=/path/ca.pem to the IMAP URL"
    if "refused" in low or "timed out" in low or "name or service" in low or "unreachable" in low:
        return ": check the host and port of [mail] imap (993 for imaps://, 143 for imap://)"
    if "cannot log in" in low:
        return f": check the user in [mail] imap and ${IMAP_PASSWORD_ENV}"
    return ""


def check_sending(settings: MailSettings, recipients: list[str], token: str) -> Check:
    """Send the test mail to each recipient, the first being the host's own address."""
    try:
        way = transport.transport_from(settings)
    except MailError as exc:
        return Check("sending", "FAILED", f"{exc}")
    server = urlsplit(settings.smtp_url).netloc.rpartition("@")[2] if settings.smtp_url else ""
    where = f"SMTP {server}" if settings.smtp_url else f"the outbox {settings.outbox_dir}"
    try:
        with way:
            for recipient in recipients:
                way.deliver(settings.from_addr, recipient, _test_mail(settings, recipient, token))
    except transport.DeliveryError as exc:
        return Check("sending", "FAILED", f"{where}: {exc}: {_sending_advice(str(exc), settings)}")
    except MailError as exc:
        return Check("sending", "FAILED", str(exc))
    return Check("sending", "ok", f"{where} took the test mail to {', '.join(recipients)}")


def check_reading(
    settings: MailSettings, imap_url: str | None, maildir: Path | None, token: str | None, wait: float
) -> Check:
    """Read access to where mail comes in, and (``token`` given) the test mail found there."""
    if maildir is None and not imap_url:
        return Check(
            "reading",
            "skipped",
            "no [mail] imap and no --maildir: mail in is not checked (pbem tick reads [mail] imap)",
        )
    try:
        where = f"IMAP {sources.parse_imap_url(imap_url).mailbox}" if imap_url else f"the Maildir {maildir}"
        if imap_url:
            found = sources.find_in_imap(
                imap_url, settings.imap_password, token or "-", wait=wait if token else 0
            )
        else:
            assert maildir is not None
            found = sources.find_in_maildir(maildir, token or "-", wait=wait if token else 0)
    except MailError as exc:
        return Check("reading", "FAILED", f"{exc}{_reading_advice(str(exc))}")
    if token is None:
        return Check("reading", "ok", f"{where} can be read (the test mail was not sent, so not looked for)")
    if found:
        return Check("reading", "ok", f"the test mail arrived in {where} (and was deleted there)")
    return Check(
        "reading",
        "FAILED",
        f"the test mail to {settings.from_addr} did not arrive in {where} within {wait:g} s: check that "
        f"mail to {settings.from_addr} is delivered to this mailbox (an alias, a filter moving it to "
        "another folder, a spam folder), or try again with a longer --wait",
    )


def check_mail(
    settings: MailSettings,
    *,
    to: str | None = None,
    imap_url: str | None = None,
    maildir: Path | None = None,
    wait: float = 60.0,
) -> list[Check]:
    """Every check in order; a failed one stops those that need it (no mail sent, none looked for)."""
    try:
        host = addresses.normalise(settings.from_addr)
    except addresses.AddressError as exc:
        return [
            Check(
                "settings",
                "FAILED",
                f"[mail] from = {settings.from_addr!r}: {exc}; set it to the address players write to",
            )
        ]
    recipients = [host]
    if to:
        try:
            recipients.append(addresses.normalise(to))
        except addresses.AddressError as exc:
            return [Check("settings", "FAILED", f"--to {to!r}: {exc}")]
    checks = [Check("settings", "ok", f"the host's address is {host}")]
    token = secrets.token_hex(8)
    checks.append(check_sending(settings, recipients, token))
    sent = not checks[-1].failed
    checks.append(check_reading(settings, imap_url, maildir, token if sent else None, wait))
    return checks
