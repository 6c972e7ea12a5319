"""What the command-line modules share (``pbem``, ``pbem mail``, the cron commands): the ``--db`` and
hidden ``--now`` options, reading ``--now``, and turning a :class:`~pbem.errors.UserError` into one line
and exit code 1."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, TypeVar

import typer

from pbem.errors import UserError

T = TypeVar("T")

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $PBEM_DB, else ./pbem.sqlite).")
]
NowOption = Annotated[
    str | None, typer.Option("--now", hidden=True, help="Pretend it is this ISO time (UTC).")
]


def guarded(work: Callable[[], T]) -> T:
    """Run ``work``; a :class:`UserError` becomes ``error: …`` on stderr and exit code 1."""
    try:
        return work()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def parse_now(text: str | None) -> datetime:
    """``--now`` as aware UTC (a time without a zone is taken as UTC), else the real clock."""
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"--now {text!r}: not an ISO time like 2026-03-02T09:00") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
