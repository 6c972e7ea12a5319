"""A player's record for the operator (issue 32): ``pbem record ADDRESS`` and ``pbem excuse``."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pbem.archive import reliability
from pbem.cli.common import AsJson, DbOption, Lang, NowOption, guarded, parse_now, reader
from pbem.storage.db import connect

commands = typer.Typer()


@commands.command("record")
def record_command(
    address: Annotated[str, typer.Argument(help="The player's mail address.")],
    game: Annotated[str | None, typer.Option("--game", help="Only this game's seat.")] = None,
    lang: Lang = None,
    as_json: AsJson = False,
    db: DbOption = None,
) -> None:
    """A player's record on this host: games joined and finished, the reliability figure (turns on
    time out of turns owed), and every missed deadline with its receipt.

    [bold]Example:[/bold] pbem record carol@example.org
    """

    def show() -> None:
        engine = connect(db, create=False)
        found = reliability.record_of(engine, address, game_id=game)
        if as_json:
            answer = {
                "address": found.address,
                "joined": found.joined,
                "finished": found.finished,
                "abandoned": found.abandoned,
                "owed": found.owed,
                "on_time": found.on_time,
                "percent": found.percent,
                "misses": [
                    {
                        "game": m.game_id,
                        "seat": m.seat,
                        "turn": m.turn,
                        "period": m.period,
                        "deadline": m.deadline_at.isoformat(),
                        "outcome": m.outcome,
                        "excused": m.excused,
                    }
                    for m in found.misses
                ],
            }
            typer.echo(json.dumps(answer, indent=1, ensure_ascii=False))
            return
        with reader(engine, game, None, lang).speaking():
            typer.echo(reliability.text(found), nl=False)

    guarded(show)


@commands.command("excuse")
def excuse_command(
    game_id: Annotated[str, typer.Argument(help="The game's id.")],
    seat: Annotated[str, typer.Argument(help="The seat whose miss is excused.")],
    turn: Annotated[int, typer.Argument(help="The turn of the miss.")],
    db: DbOption = None,
    now: NowOption = None,
) -> None:
    """Excuse a seat's missed deadline: it stays in the player's record, marked excused, and no longer
    counts in the reliability figure nor towards abandoning the seat.

    [bold]Example:[/bold] pbem excuse reef-7 red 12
    """

    def excuse() -> None:
        engine = connect(db, create=False)
        count = reliability.excuse(engine, game_id, seat, turn, "operator", parse_now(now))
        typer.echo(f"game {game_id}: {count} miss(es) of seat {seat} in turn {turn} excused")

    guarded(excuse)
