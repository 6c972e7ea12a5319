"""``pbem new GAME --open N``: a game announced with open seats that players take by mail (issue 32;
:mod:`pbem.play.lobby`, :mod:`pbem.mail.lobby`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import typer

from pbem.cli.common import parse_now
from pbem.core import clock
from pbem.play import lobby
from pbem.storage.db import connect

#: a seed is a non-negative 64-bit number (the database column, and what ``new`` draws)
MAX_SEED = 2**63 - 1


def open_game(
    db: str | None,
    game: str,
    game_id: str | None,
    seats: int,
    settings: dict[str, Any],
    start_by: str | None,
    fill_with_bots: bool,
    now: str | None,
) -> None:
    """``pbem new GAME --open N``: the game announced, its seats taken by mail (issue 32)."""
    if not game_id:
        raise typer.BadParameter("an open game needs --id")
    if fill_with_bots and not start_by:
        raise typer.BadParameter("--fill-with-bots needs --start-by: the date bots take the free seats")
    if settings.get("seed") is not None and not 0 <= settings["seed"] <= MAX_SEED:
        raise typer.BadParameter(f"the seed must be a whole number from 0 to {MAX_SEED}", param_hint="--seed")
    when = None
    if start_by:
        try:
            when = clock.utc(datetime.fromisoformat(start_by))
        except ValueError:
            raise typer.BadParameter(
                f"{start_by!r}: not an ISO time like 2026-12-20T18:00", param_hint="--start-by"
            ) from None
    lobby.open_game(
        connect(db),
        game,
        game_id,
        seats,
        settings=settings,
        start_by=when,
        fill_with_bots=fill_with_bots,
        now=parse_now(now) if now else None,
    )
    typer.echo(f"announced {game_id} ({game}) with {seats} open seats; players join by mail: join {game_id}")
    if when is not None:
        then = "bots take the seats still free" if fill_with_bots else "it is cancelled unless full"
        typer.echo(f"start date {when:%Y-%m-%d %H:%M} UTC: {then}")
