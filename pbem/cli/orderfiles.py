"""``pbem``'s commands for the order file a player writes: ``schema`` (for editors) and ``template``
(pre-filled). :mod:`pbem.cli.app` mounts :data:`commands` as its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pbem.cli.common import Db, Lang, example, reader
from pbem.core import registry
from pbem.core.errors import UserError
from pbem.intake.schema import order_file_schema
from pbem.play import orders
from pbem.storage.db import connect

commands = typer.Typer()


@commands.command(
    epilog=example(
        "pbem schema reef-encounter -o reef-encounter.schema.json",
        "pbem schema reef-encounter --decision setup",
    )
)
def schema(
    game: Annotated[str, typer.Argument(help="The game.")],
    decision: Annotated[str | None, typer.Option(help="Only this kind of decision's orders.")] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write it to this file (default: print it). Templates look for GAME.schema.json "
            "beside the order file; see docs/editors.md.",
        ),
    ] = None,
) -> None:
    """The JSON Schema of a game's order files, for editors: hover text on every step, and mistakes
    underlined as you type."""
    text = json.dumps(order_file_schema(registry.require(game), decision), indent=1) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror}") from None
    typer.echo(f"{game}: schema written to {output}")


@commands.command(
    epilog=example(
        "pbem template reef-7 --player red > red.yaml",
        "pbem template reef-7 --player red --suggest",
        "pbem template reef-7 --player red --lang hu",
    )
)
def template(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    player: Annotated[str, typer.Option(help="The seat.")],
    suggest: Annotated[bool, typer.Option(help="Fill in the bot's legal choice.")] = False,
    lang: Lang = None,
    db: Db = None,
) -> None:
    """The pre-filled order file of a player's pending decision, in the seat's language."""
    engine = connect(db, create=False)
    with reader(engine, game_id, player, lang).speaking():
        typer.echo(orders.template(engine, game_id, player, suggest=suggest), nl=False)
