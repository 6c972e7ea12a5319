"""``pbem mail fetch`` and ``pbem mail send``: thin commands over :mod:`pbem.mail`.

The team lead mounts :data:`app` as ``pbem mail``. Each command parses its options, calls the service,
prints one line per message or a count, and turns a :class:`~pbem.core.errors.UserError` into one line on
stderr and exit code 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pbem import outbox as outbox_mod
from pbem.cli.common import DbOption, guarded
from pbem.mail import checkup, inbound, poison, sources
from pbem.outbox import settings as settings_mod
from pbem.outbox import transport
from pbem.storage.db import connect

app = typer.Typer(
    name="mail",
    help="Play by email: read orders and requests from a mailbox, send replies and reports.",
    rich_markup_mode="rich",
    no_args_is_help=True,
    add_completion=False,
)

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="Settings file (default: $PBEM_CONFIG, else ./pbem.toml).")
]
SmtpOption = Annotated[
    str | None,
    typer.Option(
        "--smtp",
        help="Send via smtp://user@host:port (?starttls=1) or smtps://…; password in $PBEM_SMTP_PASSWORD.",
    ),
]
OutboxOption = Annotated[
    Path | None, typer.Option("--outbox", help="Drop outgoing mail into this Maildir instead.")
]


@app.command()
def fetch(
    maildir: Annotated[
        Path | None, typer.Option("--maildir", help="Read a Maildir (new/ and unread cur/).")
    ] = None,
    mbox: Annotated[Path | None, typer.Option("--mbox", help="Read an mbox file.")] = None,
    imap: Annotated[
        str | None,
        typer.Option(
            "--imap", help="Read imap[s]://user@host:port/MAILBOX; password in $PBEM_IMAP_PASSWORD."
        ),
    ] = None,
    after: Annotated[
        str | None,
        typer.Option(
            "--after-read",
            help="IMAP: what becomes of a message once read: seen (flag it), move, delete "
            "(default: [mail] imap_after, else seen).",
        ),
    ] = None,
    move_to: Annotated[
        str | None,
        typer.Option("--move-to", help="IMAP: the folder --after-read move moves it to (made if missing)."),
    ] = None,
    send_now: Annotated[
        bool, typer.Option("--send/--no-send", help="Deliver the replies at once when a way to send is set.")
    ] = True,
    smtp: SmtpOption = None,
    outbox: OutboxOption = None,
    db: DbOption = None,
    config: ConfigOption = None,
) -> None:
    """Read orders and requests from a mailbox and answer each message exactly once.

    Orders are submitted as if from a file; each sender gets a reply with the receipt, or every error.
    Bounces, auto-replies and our own mail are archived and not answered.

    [bold]Example:[/bold] PBEM_IMAP_PASSWORD=… pbem mail fetch --imap imaps://pbem@mail.example.org/INBOX
    --after-read move --move-to pbem-read
    """

    def work() -> int:
        settings = settings_mod.load_settings(
            config,
            smtp_url=smtp,
            outbox_dir=str(outbox) if outbox else None,
            imap_after=after,
            imap_move_to=move_to,
        )
        imap_url = imap or (settings.imap_url if not (maildir or mbox) else None)
        incoming = sources.source_for(
            str(maildir) if maildir else None,
            str(mbox) if mbox else None,
            imap_url,
            settings.imap_password,
            after=settings.imap_after,
            move_to=settings.imap_move_to,
        )
        engine = connect(db, create=False)
        handled = inbound.fetch(engine, incoming, settings)
        for one in handled:
            note = f" ({one.reason})" if one.reason else ""
            typer.echo(f"{one.outcome:9} {one.sender or '-'}{note}")
        if send_now and (settings.smtp_url or settings.outbox_dir):
            result = outbox_mod.send(engine, transport.transport_from(settings), settings=settings)
            typer.echo(f"sent {len(result.sent)}, delayed {len(result.delayed)}, failed {len(result.failed)}")
        return sum(one.outcome in ("error", "quarantined") for one in handled)

    if guarded(work):
        typer.echo(
            "error: some messages could not be handled: each is tried again at the next fetch and "
            "quarantined after a few tries (pbem mail held lists those)",
            err=True,
        )
        raise typer.Exit(1)


@app.command("test")
def test_setup(
    to: Annotated[
        str | None, typer.Option("--to", help="Also send the test mail to this address (yours), to see it.")
    ] = None,
    maildir: Annotated[
        Path | None, typer.Option("--maildir", help="Look for the test mail in this Maildir, not IMAP.")
    ] = None,
    imap: Annotated[
        str | None, typer.Option("--imap", help="Look for it in this imap[s]://user@host/MAILBOX instead.")
    ] = None,
    wait: Annotated[
        float, typer.Option("--wait", min=0, help="Seconds to wait for the test mail to arrive.")
    ] = 60.0,
    smtp: SmtpOption = None,
    outbox: OutboxOption = None,
    config: ConfigOption = None,
) -> None:
    """Check a mail setup end to end before the first game, and say what to mend.

    Sends a test mail as every mail will go (SMTP login and all) to the host's own address, and to
    --to, then looks for it where mail comes in (IMAP, or --maildir) and deletes it there. One line per
    check; exit 1 if any failed. Needs no database.

    [bold]Example:[/bold] PBEM_SMTP_PASSWORD=… PBEM_IMAP_PASSWORD=… pbem mail test --to you@example.org
    """

    def work() -> bool:
        settings = settings_mod.load_settings(
            config, smtp_url=smtp, outbox_dir=str(outbox) if outbox else None
        )
        imap_url = imap or (settings.imap_url if maildir is None else None)
        checks = checkup.check_mail(settings, to=to, imap_url=imap_url, maildir=maildir, wait=wait)
        for check in checks:
            typer.echo(f"{check.outcome:8} {check.what}: {check.said}")
        return any(check.failed for check in checks)

    if guarded(work):
        typer.echo("error: the mail setup does not work yet: mend what is marked FAILED above", err=True)
        raise typer.Exit(1)


@app.command()
def held(db: DbOption = None) -> None:
    """List the inbound messages quarantined because handling them kept failing, with the error.

    They are marked read and not tried again; their orders were not taken. Ask the sender to send
    the orders again (in a plain-text mail), and report the error.

    [bold]Example:[/bold] pbem mail held
    """

    def work() -> None:
        rows = poison.held(connect(db, create=False))
        for row in rows:
            sender = row.from_address or "-"
            typer.echo(f"{row.received_at:%Y-%m-%d %H:%M} {sender:<32} tries {row.attempts}: {row.error}")
        typer.echo(f"{len(rows)} messages quarantined")

    guarded(work)


@app.command()
def send(
    smtp: SmtpOption = None,
    outbox: OutboxOption = None,
    reports: Annotated[
        bool, typer.Option("--reports/--no-reports", help="Queue the reports of newly resolved turns first.")
    ] = True,
    db: DbOption = None,
    config: ConfigOption = None,
) -> None:
    """Queue the reports not mailed yet, then deliver every mail that is due.

    A server that is down or refuses delays a mail (retried with a growing wait); nothing is lost and
    nothing is sent twice.

    [bold]Example:[/bold] PBEM_SMTP_PASSWORD=… pbem mail send --smtp "smtp://pbem@mail.example.org:587?starttls=1"
    """

    def work() -> None:
        settings = settings_mod.load_settings(
            config, smtp_url=smtp, outbox_dir=str(outbox) if outbox else None
        )
        way = transport.transport_from(settings)
        engine = connect(db, create=False)
        queued = outbox_mod.enqueue_reports(engine, settings=settings) if reports else 0
        result = outbox_mod.send(engine, way, settings=settings)
        typer.echo(
            f"queued {queued} reports; sent {len(result.sent)}, delayed {len(result.delayed)}, "
            f"failed {len(result.failed)}"
        )

    guarded(work)
