"""``pbem``'s commands over a game's record: ``replay``, ``export``, ``archive`` (its page) and
``import``. :mod:`pbem.cli.app` mounts :data:`commands` as its own."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from sqlmodel import Session

from pbem.archive import files as archive
from pbem.archive import replay, verifying
from pbem.archive.page import write_page
from pbem.cli.common import AsJson, Db, example, said_welcome, welcome
from pbem.storage.db import connect
from pbem.storage.history import game_row

commands = typer.Typer()


@commands.command(
    "replay",
    epilog=example("pbem replay reef-7 --verify", "pbem replay reef-7.yaml --turn 12 --player red"),
)
def replay_command(
    source: Annotated[str, typer.Argument(help="A game id, or an archive file.")],
    verify: Annotated[
        bool, typer.Option(help="Re-run every turn in a new process; check every hash.")
    ] = False,
    turn: Annotated[int | None, typer.Option(help="Show the re-run report of this turn.")] = None,
    player: Annotated[str | None, typer.Option(help="Whose report (default: public; all once over).")] = None,
    public: Annotated[
        bool, typer.Option("--public", help="Only the public (observers') report, even once over.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="text or html.")] = "text",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Re-run a game from its setup and recorded orders."""
    if as_json and turn is None:
        if verify:
            result = verifying.verify_in_new_process(source, db)
            answer: Any = {"source": source, "ok": result["ok"], "turns": result["turns"]}
            answer["problems"] = result["problems"]
        else:
            steps = replay.replay(archive.load_source(source, db))
            answer = [{"turn": st.number, "sha256": st.digest, "problems": list(st.problems)} for st in steps]
        typer.echo(json.dumps(answer, indent=1, ensure_ascii=False))
        if verify and not answer["ok"]:
            raise typer.Exit(1)
        return
    if verify:
        result = verifying.verify_in_new_process(source, db)
        for problem in result["problems"]:
            typer.echo(problem, err=True)
        if not result["ok"]:
            typer.echo(f"{source}: replay FAILED after {result['turns']} turns", err=True)
            raise typer.Exit(1)
        typer.echo(f"{source}: {result['turns']} turns replayed; every state hash matches")
    if turn is not None:
        typer.echo(
            replay.report_at(archive.load_source(source, db), turn, player, fmt, public=public), nl=False
        )
    elif not verify:
        record = archive.load_source(source, db)
        for step in replay.replay(record):
            typer.echo(
                f"turn {step.number}: {step.digest[:16]}"
                + (" " + "; ".join(step.problems) if step.problems else "")
            )


@commands.command(
    "export", epilog=example("pbem export reef-7 -o reef-7.yaml", "pbem export reef-7 -o reef-7.json")
)
def export_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    output: Annotated[
        str, typer.Option("-o", "--output", help="The file: .json for JSON, else YAML; - for stdout.")
    ] = "-",
    include_secrets: Annotated[
        bool,
        typer.Option(
            "--include-secrets", help="Export a game not finished yet (its seed tells every hidden holding)."
        ),
    ] = False,
    db: Db = None,
) -> None:
    """Write a self-contained archive: game, seed, options, players, every turn's orders and hashes.
    A game still running is refused without --include-secrets: players get its page (pbem archive)."""
    text = archive.export(connect(db, create=False), game_id, output, include_secrets=include_secrets)
    if output == "-":
        typer.echo(text, nl=False)
    else:
        typer.echo(f"{game_id}: archive written to {output}")


@commands.command(
    "archive",
    epilog=example("pbem archive reef-7 -o reef-7.html"),
)
def archive_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    output: Annotated[str, typer.Option("-o", "--output", help="The HTML file to write.")],
    db: Db = None,
) -> None:
    """Write a self-contained page that replays the game (slider, buttons, arrow keys, play); a
    finished game shows every seat and carries its archive, a running one only the public table."""
    size = write_page(connect(db, create=False), game_id, output)
    typer.echo(f"{game_id}: archive page written to {output} ({size:,} bytes)")


@commands.command(
    "import", epilog=example("pbem import reef-7.yaml", "pbem import reef-7.yaml --id reef-7-copy")
)
def import_command(
    file: Annotated[
        str, typer.Argument(help="An archive written by pbem export, or a record (docs/records.md).")
    ],
    game_id: Annotated[str | None, typer.Option("--id", help="Store it under another id.")] = None,
    no_welcome: Annotated[
        bool, typer.Option("--no-welcome", help="Mail no welcome (you hand the passwords out yourself).")
    ] = False,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Replay an archive, checking every hash, and store it; each seat gets a new password, shown once.
    A record of a game played elsewhere (no hashes) is replayed through the rules, every order checked."""
    engine = connect(db)
    done = archive.import_game(engine, file, game_id=game_id)
    new_id, issued = done.id, done.seats
    with Session(engine) as session:
        finished = game_row(session, new_id).status == "finished"
    # a finished game has no turn to play: a welcome would invite its players to nothing
    welcomed = [] if no_welcome or finished else welcome(db, new_id, issued, None)
    master = {"gm": {"email": done.game_master, "password": done.game_master_password}}
    if as_json:
        seats = [{"seat": s, "password": p} for s, p in issued.items()]
        typer.echo(json.dumps({"id": new_id, "seats": seats, **(master if done.game_master else {})}))
        return
    typer.echo(f"imported {new_id}; new passwords, shown this once:")
    for seat, password in issued.items():
        typer.echo(f"  {seat:<12} {password}")
    if done.game_master:
        typer.echo(
            f"game master {done.game_master}; new password, shown this once: {done.game_master_password}"
        )
    said_welcome(welcomed)
    if finished and issued and not no_welcome:
        typer.echo("the game is over: no welcome mail queued (its players have no turn to play)")
