"""What the command-line modules share (``pbem``, ``pbem mail``, the cron commands): the ``--db``,
``--json``, ``--lang`` and hidden ``--now`` options, who reads a command's answer (:func:`reader`),
reading ``--now`` and ``NAME=VALUE``, a command's example, the welcome mail of a new or imported game,
and turning a :class:`~pbem.core.errors.UserError` into one line and exit code 1."""

from __future__ import annotations

import errno
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from pbem.core.clock import utc
from pbem.core.errors import UserError
from pbem.core.i18n import UnknownLanguage
from pbem.mail.welcome import queue_welcomes
from pbem.outbox import readers
from pbem.outbox.errors import MailError
from pbem.outbox.readers import Reader
from pbem.storage.db import connect

T = TypeVar("T")

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $PBEM_DB, else ./pbem.sqlite).")
]
NowOption = Annotated[
    str | None, typer.Option("--now", hidden=True, help="Pretend it is this ISO time (UTC).")
]
#: the ``--db`` of pbem's own commands (typer fills it from $PBEM_DB; DbOption leaves that to connect)
Db = Annotated[
    str | None,
    typer.Option("--db", envvar="PBEM_DB", help="Database URL or SQLite file (default ./pbem.sqlite)."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
#: the ``--lang`` of every command that prints for a player
Lang = Annotated[
    str | None,
    typer.Option(
        "--lang", help="Answer in this language: en, hu, cs, zh, ru (default: the seat's, else the game's)."
    ),
]


def reader(
    engine: Engine, game_id: str | None, seat: str | None, lang: str | None, *, text: str | None = None
) -> Reader:
    """Who reads what a command prints for a player (:mod:`pbem.outbox.readers`, the one rule every
    answer follows): ``--lang`` when given, else the seat's language, else its game's. ``text``: an
    order file, whose envelope lines name the game and seat instead."""
    try:
        if text is not None:
            return readers.reader_of_text(engine, text, wanted=lang)
        return readers.reader_of(engine, game_id, seat, wanted=lang)
    except UnknownLanguage as exc:
        raise typer.BadParameter(str(exc), param_hint="--lang") from None


def example(*lines: str) -> str:
    return "[bold]Example:[/bold]\n\n" + "\n\n".join(f"  [cyan]{line}[/cyan]" for line in lines)


def pair(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise typer.BadParameter(f"{what} must be NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def known_failure(exc: BaseException) -> str | None:
    """What a person can do about a failure of the machine rather than of pbem (a full disk, a file
    that stopped being a database), in one line; ``None`` for anything else."""
    text = str(getattr(exc, "orig", None) or exc)
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or "disk is full" in text:
        return "the disk is full: nothing was changed; free some space and run the command again"
    if "not a database" in text or "disk image is malformed" in text:
        return f"the database file is damaged or is not a database ({text}); restore it from a backup"
    if "readonly database" in text or "read-only" in text:
        return f"the database is read-only here ({text}); run the command where it may be written"
    return None


def guarded(work: Callable[[], T]) -> T:
    """Run ``work``; a :class:`UserError` becomes ``error: …`` on stderr and exit code 1, and so does a
    failure of the machine a person can fix (:func:`known_failure`)."""
    try:
        return work()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except (OSError, DBAPIError) as exc:
        known = known_failure(exc)
        if known is None:
            raise
        typer.echo(f"error: {known}", err=True)
        raise typer.Exit(1) from None


def parse_now(text: str | None) -> datetime:
    """``--now`` as aware UTC (a time without a zone is taken as UTC), else the real clock."""
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"--now {text!r}: not an ISO time like 2026-03-02T09:00") from None
    return utc(moment)


def welcome(db: str | None, game_id: str, issued: dict[str, str], now: str | None) -> list[str]:
    """Queue each seat's welcome mail (password, how to play, first report); the seats welcomed."""
    try:
        return queue_welcomes(connect(db), game_id, issued, now=parse_now(now) if now else None)
    except MailError as exc:
        typer.echo(f"no welcome mail queued: {exc}", err=True)
        return []


def said_welcome(welcomed: list[str]) -> None:
    if welcomed:
        typer.echo(
            f"welcome mail queued for {', '.join(welcomed)} (the next tick or pbem mail send delivers it)"
        )
