"""The ``pbem`` commands of issue 17: ``verify`` (anyone's check of the dice, from an archive alone),
``calendar`` (a seat's deadlines as an iCalendar feed) and ``away`` (a seat's time away).

:func:`register` adds them to :mod:`pbem.cli.app`'s app.
"""

from __future__ import annotations

from typing import Annotated

import typer
from sqlmodel import Session

from pbem.archive.files import is_archive_path, read_archive
from pbem.archive.replay import from_database, verify
from pbem.archive.verify import check
from pbem.cli.common import Db, NowOption, example, parse_now
from pbem.core import clock
from pbem.core.errors import UserError
from pbem.intake import away
from pbem.render.calendar import feed
from pbem.storage.db import connect, lock_game
from pbem.storage.history import game_row, seat_rows


def verify_command(
    archive_path: Annotated[
        str,
        typer.Argument(metavar="SOURCE", help="A finished game's id, or its archive (.yaml or .json)."),
    ],
    db: Db = None,
) -> None:
    """Check a finished game's dice: the seed against its commitment, and every draw re-derived."""
    if is_archive_path(archive_path):
        record = read_archive(archive_path).record()
    else:
        with Session(connect(db, create=False)) as session:
            if game_row(session, archive_path).status != "finished":
                raise UserError(
                    f"game {archive_path} is not finished: its dice are checked once it is over, when its "
                    "seed is revealed (pbem replay --verify checks it now)"
                )
        record = from_database(connect(db, create=False), archive_path)
    if record.recorded_elsewhere and record.seed is None:
        result = verify(record)
        for problem in result["problems"]:
            typer.echo(problem, err=True)
        if not result["ok"]:
            typer.echo(f"{archive_path}: replay FAILED after {result['turns']} turns", err=True)
            raise typer.Exit(1)
        typer.echo(
            f"{archive_path}: recorded elsewhere without a seed, so there are no dice to re-derive: its "
            f"draws are the record's; {result['turns']} turns replayed, every state hash matches"
        )
        return
    result = check(record)
    for problem in result.problems:
        typer.echo(problem, err=True)
    if not result.ok:
        typer.echo(f"{archive_path}: the dice do NOT check out", err=True)
        raise typer.Exit(1)
    if record.dice >= 2:
        typer.echo(f"{archive_path}: seed {record.seed} is the one committed to ({record.commitment})")
    else:
        typer.echo(f"{archive_path}: a game from before committed dice: draws checked against its seed")
    typer.echo(
        f"{archive_path}: {result.draws} draws over {result.turns} turns re-derived; every state hash matches"
    )


def away_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    seat: Annotated[str, typer.Argument(help="The seat away.")],
    until: Annotated[
        str | None, typer.Option(help="The last day away, YYYY-MM-DD (in the seat's time zone).")
    ] = None,
    back: Annotated[bool, typer.Option("--back", help="End the seat's absence now.")] = False,
    db: Db = None,
    now: NowOption = None,
) -> None:
    """Mark a seat away until a day (the game's absence policy applies), or back with --back."""
    if (until is None) == (not back):
        raise typer.BadParameter("give either --until YYYY-MM-DD or --back")
    moment = clock.utc(parse_now(now) if now else None)
    with Session(connect(db, create=False)) as session:
        lock_game(session, game_id)
        game = game_row(session, game_id)
        found = [s for s in seat_rows(session, game_id) if s.name == seat]
        if not found:
            names = ", ".join(s.name for s in seat_rows(session, game_id))
            raise UserError(f"game {game_id} has no seat {seat!r}; its seats are {names}")
        if back:
            was = away.end_absence(found[0], moment)
            session.add(found[0])
            said = f"{seat} is back" if was else f"{seat} was not away"
        else:
            said = away.set_away(session, game, found[0], until, moment)
        session.commit()
    typer.echo(f"{game_id}: {said}")


def calendar_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    player: Annotated[str, typer.Option("--player", help="Whose deadlines.")],
    db: Db = None,
    now: NowOption = None,
) -> None:
    """Print a seat's deadlines as an iCalendar feed (RFC 5545), with a reminder before each."""
    typer.echo(feed(connect(db, create=False), game_id, player, parse_now(now) if now else None), nl=False)


def register(app: typer.Typer) -> None:
    app.command(
        "verify",
        epilog=example("pbem verify reef-7", "pbem verify reef-7.yaml"),
    )(verify_command)
    app.command(
        "calendar",
        epilog="[bold]Example:[/bold]\n\n  [cyan]pbem calendar reef-7 --player ann > ann.ics[/cyan]",
    )(calendar_command)
    app.command(
        "away",
        epilog="[bold]Example:[/bold]\n\n  [cyan]pbem away reef-7 ann --until 2026-12-20[/cyan]",
    )(away_command)
