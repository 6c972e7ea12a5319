"""``pbem``'s commands of a game's life after ``new`` (:mod:`pbem.cli.newgame`): ``submit``, ``check``,
``process``, ``report``, ``status``. :mod:`pbem.cli.app` mounts :data:`commands` as its own."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from sqlalchemy import Engine

from pbem.cli.common import (
    AsJson,
    Db,
    Lang,
    example,
    reader,
)
from pbem.core import clock
from pbem.core.errors import UserError
from pbem.core.i18n import _
from pbem.mail.extract import point_at
from pbem.outbox import notices as pushes
from pbem.play import orders, turns
from pbem.play import status as status_service
from pbem.render import reports
from pbem.storage.db import connect

commands = typer.Typer()


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(_("cannot read {path}: {why}", path=path, why=exc.strerror)) from None


@commands.command(
    epilog=example(
        "pbem submit red-turn12.yaml", "cat orders.yaml | pbem submit -", "pbem submit red.yaml --lang hu"
    )
)
def submit(
    files: Annotated[list[str], typer.Argument(help="Order files (YAML); - reads standard input.")],
    as_json: AsJson = False,
    lang: Lang = None,
    db: Db = None,
) -> None:
    """Store orders: exit 0 when every file is accepted (with its receipt), 1 when any is rejected.

    A rejected file gets every error of the first stage it fails: reading the file (one), the
    envelope (each field), the shape of the steps (each step), then the rules, checked step by step in
    order: the first step the rules refuse (later steps depend on it). Each file is answered in the
    language of the seat it names (else its game's), or --lang."""
    engine = connect(db, create=False)
    rejected = 0
    answers: list[dict[str, Any]] = []
    for path in files:
        raw = _read_input(path)
        with reader(engine, None, None, lang, text=raw.decode("utf-8", "replace")).speaking():
            rejected += not _submitted(engine, path, raw, as_json, answers)
    if as_json:
        typer.echo(json.dumps(answers, indent=1, ensure_ascii=False))
    if rejected:
        raise typer.Exit(1)


def _submitted(engine: Engine, path: str, raw: bytes, as_json: bool, answers: list[dict[str, Any]]) -> bool:
    """Submit one file and say (or add to ``answers``) what became of it; whether it was accepted."""
    receipt = orders.submit(engine, raw, source="file")
    if as_json:
        answers.append(
            {
                "file": path,
                "accepted": receipt.accepted,
                "game": receipt.game_id,
                "seat": receipt.seat,
                "turn": receipt.turn,
                "receipt": receipt.receipt,
                "replaced": receipt.replaced_at.isoformat() if receipt.replaced_at else None,
                "errors": receipt.errors,
            }
        )
    elif receipt.accepted:
        typer.echo(
            _(
                "{file}: accepted for {game}, turn {turn}, {seat} (receipt {receipt})",
                file=path,
                game=receipt.game_id,
                turn=receipt.turn,
                seat=receipt.seat,
                receipt=receipt.receipt,
            )
        )
        if receipt.replaced_at is not None:
            typer.echo(
                "  "
                + _(
                    "these orders replace {seat}'s orders for turn {turn} that came {when}",
                    seat=receipt.seat,
                    turn=receipt.turn,
                    when=clock.show(receipt.replaced_at),
                )
            )
    else:
        typer.echo(_("{file}: rejected", file=path), err=True)
        text = raw.decode("utf-8", errors="replace")
        for error in receipt.errors:
            typer.echo(f"  {error}", err=True)
            pointed = point_at(text, error)  # the line it names, marked, as a mail's answer shows it
            if pointed:
                typer.echo(pointed, err=True)
    return receipt.accepted


@commands.command(epilog=example("pbem check red-turn12.yaml", "pbem check red-turn12.yaml --lang cs"))
def check(
    file: Annotated[str, typer.Argument(help="An order file (YAML); - reads standard input.")],
    as_json: AsJson = False,
    lang: Lang = None,
    db: Db = None,
) -> None:
    """Dry run of submit: stores nothing, sends nothing.

    Rejected orders: the errors, as submit would give them (exit 1). Legal orders: a preview (exit 0):
    your report as it will be after them when nothing in the turn is left to chance; otherwise what
    your orders do up to the first draw (or the first thing only others can see), then the table as
    it stands, since the rest happens when the turn resolves. A turn that waits for other players'
    orders shows the table as it stands. In the language of the seat the file names (else its game's),
    or --lang."""
    engine, raw = connect(db, create=False), _read_input(file)
    with reader(engine, None, None, lang, text=raw.decode("utf-8", "replace")).speaking():
        _checked(engine, raw, as_json)


def _checked(engine: Engine, raw: bytes, as_json: bool) -> None:
    """Check one file and say what became of it (exit 1 when it is rejected)."""
    result = orders.check(engine, raw)
    if as_json:
        answer = {
            "ok": result.ok,
            "errors": result.errors,
            "receipt": result.receipt,
            "preview": result.preview,
        }
        typer.echo(json.dumps(answer, indent=1, ensure_ascii=False))
        if not result.ok:
            raise typer.Exit(1)
        return
    if not result.ok:
        text = raw.decode("utf-8", errors="replace")
        for error in result.errors:
            typer.echo(error, err=True)
            pointed = point_at(text, error)
            if pointed:
                typer.echo(pointed, err=True)
        raise typer.Exit(1)
    typer.echo(result.preview or "", nl=False)


@commands.command(
    epilog=example("pbem process reef-7", "pbem process --all", "pbem process reef-7 --fill-missing")
)
def process(
    game_ids: Annotated[list[str] | None, typer.Argument(help="Games to process.")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every active game.")] = False,
    fill_missing: Annotated[
        bool, typer.Option(help="Seats that owe orders get their bot's orders (a game master's call).")
    ] = False,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Resolve every turn whose orders are all in. Deadlines and missed orders are `pbem tick`'s job
    (each game's policy); --fill-missing is the game master covering for absent players by hand."""
    engine = connect(db, create=False)
    if all_games:
        game_ids = [e["id"] for e in status_service.status(engine) if e["status"] == "active"]
    if not game_ids:
        raise typer.BadParameter("name the games to process, or --all")
    resolved = {}
    for game_id in game_ids:
        # each turn's notices at the seats' notice URLs are queued with it, as the tick's are (issue 32)
        done = turns.process(engine, game_id, fill_missing=fill_missing, after_turn=pushes.after_turn)
        resolved[game_id] = done
        if not as_json:
            said = f"resolved turn {', '.join(map(str, done))}" if done else _waits(engine, game_id)
            typer.echo(f"{game_id}: {said}")
    if as_json:
        typer.echo(json.dumps([{"id": g, "resolved": done} for g, done in resolved.items()], indent=1))


def _waits(engine: Any, game_id: str) -> str:
    """Why a game has nothing to resolve: whom it waits for and by when, or that it is over or paused."""
    entry = status_service.status(engine, game_id)[0]
    if entry["finished"]:
        return _("nothing to resolve: the game is over")
    if entry["status"] != "active":  # paused by its game master
        return _("nothing to resolve: the game is paused until its game master resumes it")
    awaited = ", ".join(entry["awaited"])
    if not awaited:  # every order is in, and another driver is resolving the turn now
        return _("nothing to resolve")
    if entry["deadline"] is None:
        return _(
            "nothing to resolve: turn {turn} waits for orders from {seats} (no deadline)",
            turn=entry["turn"],
            seats=awaited,
        )
    return _(
        "nothing to resolve: turn {turn} waits for orders from {seats}, due by {deadline}",
        turn=entry["turn"],
        seats=awaited,
        deadline=clock.show(datetime.fromisoformat(entry["deadline"])),
    )


@commands.command(
    epilog=example(
        "pbem report reef-7 --player red",
        "pbem report reef-7 --turn 3 --format html > t3.html",
        "pbem report reef-7 --player red --lang hu",
    )
)
def report(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    player: Annotated[str | None, typer.Option(help="Whose report (default: the public one).")] = None,
    turn: Annotated[int | None, typer.Option(help="After which turn (default: the latest).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or html.")] = "text",
    lang: Annotated[
        str | None, typer.Option("--lang", help="Render it anew in this language: en, hu, cs, zh, ru.")
    ] = None,
    db: Db = None,
) -> None:
    """Print a report: a player's, or the public one; once the game is over, --turn alone shows all."""
    typer.echo(
        reports.report(connect(db, create=False), game_id, player, turn=turn, fmt=fmt, lang=lang), nl=False
    )


@commands.command(epilog=example("pbem status", "pbem status reef-7 --json"))
def status(
    game_id: Annotated[str | None, typer.Argument(help="One game (default: all).")] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Games, turns, whose orders are awaited, deadlines; final scores once over."""
    entries = status_service.status(connect(db, create=False), game_id)
    if as_json:
        typer.echo(json.dumps(entries if game_id is None else entries[0], indent=1))
        return
    if not entries:
        typer.echo(_("no games"))
    for entry in entries:
        typer.echo(status_service.describe(entry))
