"""The ``pbem`` command: parse, call one service, print. Exit codes: 0 ok, 1 rejected input, 2 usage.

No Python traceback reaches a user: a :class:`~pbem.errors.UserError` is one line on stderr and exit
code 1; anything else is a bug, shown as one line too, and in full with ``PBEM_DEBUG=1``.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem import archive, create, orders, registry, replay, reports, turns
from pbem import status as status_service
from pbem.chance import derived_rng
from pbem.cli_common import NowOption, parse_now
from pbem.cron import deadlines
from pbem.db import connect
from pbem.demo import DEFAULT_GAME, run_demo
from pbem.errors import UserError
from pbem.schema import order_file_schema

app = typer.Typer(
    name="pbem",
    help="Board games played by email: YAML orders in, rules checked, turns resolved, reports out.",
    rich_markup_mode="rich",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Db = Annotated[
    str | None,
    typer.Option("--db", envvar="PBEM_DB", help="Database URL or SQLite file (default ./pbem.sqlite)."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def _example(*lines: str) -> str:
    return "[bold]Example:[/bold]\n\n" + "\n\n".join(f"  [cyan]{line}[/cyan]" for line in lines)


def _pair(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise typer.BadParameter(f"{what} must be NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def parse_duration(text: str) -> int:
    """``48h``, ``2d``, ``90m``, ``1d12h`` as seconds: the cron layer's grammar, one for the whole host,
    a bad value being a usage error here."""
    try:
        return deadlines.parse_duration(text)
    except UserError as exc:
        raise typer.BadParameter(str(exc)) from None


@app.command(
    epilog=_example(
        "pbem new reef-encounter --id reef-7 --player red=ann@example.org --player blue=bo@example.org "
        "--deadline 48h",
        "pbem new   [dim](lists the installed games)[/dim]",
    )
)
def new(
    game: Annotated[
        str | None, typer.Argument(help="The game to play (omit to list the installed games).")
    ] = None,
    game_id: Annotated[str | None, typer.Option("--id", help="The new game's id, e.g. reef-7.")] = None,
    player: Annotated[
        list[str] | None, typer.Option("--player", help="A seat as NAME=EMAIL, in seating order; repeat.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of every draw (default: a secret random one).")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="A game option as KEY=VALUE.")] = None,
    deadline: Annotated[str | None, typer.Option(help="Time for each turn, e.g. 48h or 2d.")] = None,
    grace: Annotated[str | None, typer.Option(help="Grace after a deadline, e.g. 1h.")] = None,
    nmr: Annotated[str, typer.Option(help="Missed orders after the deadline: wait, or bot.")] = "wait",
    abandon_after: Annotated[
        int | None, typer.Option(help="Missed turns after which a seat is abandoned.")
    ] = None,
    require_from_match: Annotated[
        bool, typer.Option(help="Mailed orders must come from the seat's address.")
    ] = False,
    shuffle_seats: Annotated[
        bool, typer.Option(help="Seat the players in an order drawn from the seed.")
    ] = False,
    no_welcome: Annotated[
        bool, typer.Option("--no-welcome", help="Mail no welcome (you hand the passwords out yourself).")
    ] = False,
    as_json: AsJson = False,
    db: Db = None,
    now: NowOption = None,
) -> None:
    """Create a game and print each player's password, once (only a hash is kept)."""
    if game is None:
        for name, found in registry.games().items():
            typer.echo(f"{name:<18} {found.title} ({found.min_players}-{found.max_players} players)")
        for name, why in registry.broken.items():
            typer.echo(f"{name:<18} cannot load: {why}", err=True)
        return
    if not game_id or not player:
        raise typer.BadParameter("a new game needs --id and at least one --player NAME=EMAIL")
    seats = [_pair(p, "--player") for p in player]
    seed = secrets.randbelow(2**63) if seed is None else seed
    if shuffle_seats:
        derived_rng(seed, 0, 0, "seats").shuffle(seats)
    issued = create.create_game(
        connect(db),
        game,
        game_id,
        seats,
        seed=seed,
        options=dict(_pair(o, "--option") for o in option or []),
        turn_seconds=parse_duration(deadline) if deadline else None,
        grace_seconds=parse_duration(grace) if grace else 0,
        nmr=nmr,
        abandon_after=abandon_after,
        require_from_match=require_from_match,
        now=parse_now(now) if now else None,
    )
    emails = dict(seats)
    welcomed = [] if no_welcome else _welcome(db, game_id, issued, now)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "id": game_id,
                    "game": game,
                    "seats": [{"seat": s, "email": emails[s], "password": pw} for s, pw in issued.items()],
                },
                indent=1,
            )
        )
        return
    typer.echo(f"created {game_id} ({game}); passwords, shown this once:")
    for seat, password in issued.items():
        typer.echo(f"  {seat:<12} {emails[seat]:<32} {password}")
    _said_welcome(welcomed)


def _welcome(db: str | None, game_id: str, issued: dict[str, str], now: str | None) -> list[str]:
    """Queue each seat's welcome mail (password, how to play, first report); the seats welcomed."""
    from pbem.mail.errors import MailError
    from pbem.mail.welcome import queue_welcomes

    try:
        return queue_welcomes(connect(db), game_id, issued, now=parse_now(now) if now else None)
    except MailError as exc:
        typer.echo(f"no welcome mail queued: {exc}", err=True)
        return []


def _said_welcome(welcomed: list[str]) -> None:
    if welcomed:
        typer.echo(
            f"welcome mail queued for {', '.join(welcomed)} (the next tick or pbem mail send delivers it)"
        )


def _read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None


@app.command(epilog=_example("pbem submit red-turn12.yaml", "cat orders.yaml | pbem submit -"))
def submit(
    files: Annotated[list[str], typer.Argument(help="Order files (YAML); - reads standard input.")],
    db: Db = None,
) -> None:
    """Store orders: exit 0 when every file is accepted, 1 when any is rejected (with its errors)."""
    engine = connect(db)
    rejected = 0
    for path in files:
        receipt = orders.submit(engine, _read_input(path), source="file")
        if receipt.accepted:
            typer.echo(
                f"{path}: accepted for {receipt.game_id}, turn {receipt.turn}, {receipt.seat} "
                f"(receipt {receipt.receipt})"
            )
        else:
            rejected += 1
            typer.echo(f"{path}: rejected", err=True)
            for error in receipt.errors:
                typer.echo(f"  {error}", err=True)
    if rejected:
        raise typer.Exit(1)


@app.command(epilog=_example("pbem check red-turn12.yaml"))
def check(
    file: Annotated[str, typer.Argument(help="An order file (YAML); - reads standard input.")],
    db: Db = None,
) -> None:
    """Dry run: the errors, or a preview of your report with these orders. Stores nothing."""
    result = orders.check(connect(db), _read_input(file))
    if not result.ok:
        for error in result.errors:
            typer.echo(error, err=True)
        raise typer.Exit(1)
    typer.echo(result.preview or "", nl=False)


@app.command(
    epilog=_example("pbem process reef-7", "pbem process --all", "pbem process reef-7 --fill-missing")
)
def process(
    game_ids: Annotated[list[str] | None, typer.Argument(help="Games to process.")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every active game.")] = False,
    fill_missing: Annotated[
        bool, typer.Option(help="Seats that owe orders get their bot's orders (a game master's call).")
    ] = False,
    db: Db = None,
) -> None:
    """Resolve every turn whose orders are all in. Deadlines and missed orders are `pbem tick`'s job
    (each game's policy); --fill-missing is the game master covering for absent players by hand."""
    engine = connect(db)
    if all_games:
        game_ids = [e["id"] for e in status_service.status(engine) if e["status"] == "active"]
    if not game_ids:
        raise typer.BadParameter("name the games to process, or --all")
    for game_id in game_ids:
        done = turns.process(engine, game_id, fill_missing=fill_missing)
        typer.echo(
            f"{game_id}: " + (f"resolved turn {', '.join(map(str, done))}" if done else "nothing to resolve")
        )


@app.command(
    epilog=_example("pbem report reef-7 --player red", "pbem report reef-7 --turn 3 --format html > t3.html")
)
def report(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    player: Annotated[str | None, typer.Option(help="Whose report (default: the public one).")] = None,
    turn: Annotated[int | None, typer.Option(help="After which turn (default: the latest).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or html.")] = "text",
    db: Db = None,
) -> None:
    """Print a report: a player's, or the public one; once the game is over, --turn alone shows all."""
    typer.echo(reports.report(connect(db), game_id, player, turn=turn, fmt=fmt), nl=False)


@app.command(epilog=_example("pbem status", "pbem status reef-7 --json"))
def status(
    game_id: Annotated[str | None, typer.Argument(help="One game (default: all).")] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Games, turns, whose orders are awaited, deadlines; final scores once over."""
    entries = status_service.status(connect(db), game_id)
    if as_json:
        typer.echo(json.dumps(entries if game_id is None else entries[0], indent=1))
        return
    if not entries:
        typer.echo("no games")
    for entry in entries:
        typer.echo(status_service.describe(entry))


@app.command(
    "replay",
    epilog=_example("pbem replay reef-7 --verify", "pbem replay reef-7.yaml --turn 12 --player red"),
)
def replay_command(
    source: Annotated[str, typer.Argument(help="A game id, or an archive file.")],
    verify: Annotated[
        bool, typer.Option(help="Re-run every turn in a new process; check every hash.")
    ] = False,
    turn: Annotated[int | None, typer.Option(help="Show the re-run report of this turn.")] = None,
    player: Annotated[str | None, typer.Option(help="Whose report (default: public; all once over).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or html.")] = "text",
    db: Db = None,
) -> None:
    """Re-run a game from its setup and recorded orders."""
    if verify:
        result = replay.verify_in_new_process(source, db)
        for problem in result["problems"]:
            typer.echo(problem, err=True)
        if not result["ok"]:
            typer.echo(f"{source}: replay FAILED after {result['turns']} turns", err=True)
            raise typer.Exit(1)
        typer.echo(f"{source}: {result['turns']} turns replayed; every state hash matches")
    if turn is not None:
        typer.echo(replay.report_at(replay.load_source(source, db), turn, player, fmt), nl=False)
    elif not verify:
        record = replay.load_source(source, db)
        for step in replay.replay(record):
            typer.echo(
                f"turn {step.number}: {step.digest[:16]}"
                + (" " + "; ".join(step.problems) if step.problems else "")
            )


@app.command(
    "export", epilog=_example("pbem export reef-7 -o reef-7.yaml", "pbem export reef-7 -o reef-7.json")
)
def export_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    output: Annotated[
        str, typer.Option("-o", "--output", help="The file: .json for JSON, else YAML; - for stdout.")
    ] = "-",
    db: Db = None,
) -> None:
    """Write a self-contained archive: game, seed, options, players, every turn's orders and hashes."""
    text = archive.export(connect(db), game_id, output)
    if output == "-":
        typer.echo(text, nl=False)
    else:
        typer.echo(f"{game_id}: archive written to {output}")


@app.command("import", epilog=_example("pbem import reef-7.yaml", "pbem import reef-7.yaml --id reef-7-copy"))
def import_command(
    file: Annotated[str, typer.Argument(help="An archive written by pbem export.")],
    game_id: Annotated[str | None, typer.Option("--id", help="Store it under another id.")] = None,
    no_welcome: Annotated[
        bool, typer.Option("--no-welcome", help="Mail no welcome (you hand the passwords out yourself).")
    ] = False,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Replay an archive, checking every hash, and store it; each seat gets a new password, shown once."""
    new_id, issued = archive.import_archive(connect(db), file, game_id=game_id)
    welcomed = [] if no_welcome else _welcome(db, new_id, issued, None)
    if as_json:
        typer.echo(
            json.dumps({"id": new_id, "seats": [{"seat": s, "password": p} for s, p in issued.items()]})
        )
        return
    typer.echo(f"imported {new_id}; new passwords, shown this once:")
    for seat, password in issued.items():
        typer.echo(f"  {seat:<12} {password}")
    _said_welcome(welcomed)


@app.command(epilog=_example("pbem schema reef-encounter > reef-orders.schema.json"))
def schema(
    game: Annotated[str, typer.Argument(help="The game.")],
    decision: Annotated[str | None, typer.Option(help="Only this kind of decision's orders.")] = None,
) -> None:
    """The JSON Schema of a game's order files, for editors."""
    typer.echo(json.dumps(order_file_schema(registry.require(game), decision), indent=1))


@app.command(
    epilog=_example(
        "pbem template reef-7 --player red > red.yaml", "pbem template reef-7 --player red --suggest"
    )
)
def template(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    player: Annotated[str, typer.Option(help="The seat.")],
    suggest: Annotated[bool, typer.Option(help="Fill in the bot's legal choice.")] = False,
    db: Db = None,
) -> None:
    """The pre-filled order file of a player's pending decision."""
    typer.echo(orders.template(connect(db), game_id, player, suggest=suggest), nl=False)


@app.command(epilog=_example("pbem demo", "pbem demo --game coral-divers --players 4 --seed 7 --out /tmp/cd"))
def demo(
    game: Annotated[str, typer.Option(help="The game to play.")] = DEFAULT_GAME,
    players: Annotated[int | None, typer.Option(help="How many bot players.")] = None,
    seed: Annotated[int, typer.Option(help="The game's seed.")] = 1,
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: a fresh file in --out).")
    ] = None,
    out: Annotated[Path, typer.Option(help="Where the reports go.")] = Path("demo-out"),
) -> None:
    """Play a whole game with bots through submit and process; write every report to disk."""
    run_demo(game_type=game, players=players, seed=seed, db_url=db, out=out, say=typer.echo)


def _mount_layers() -> None:
    """``pbem mail …`` and ``pbem tick`` with the game master's commands, from their own packages."""
    try:
        from pbem.mail.cli import app as mail_app
    except ImportError:  # a layer that is not there leaves the rest of the command working
        pass
    else:
        app.add_typer(mail_app, name="mail")
    try:
        from pbem.cron.cli import register
    except ImportError:
        pass
    else:
        register(app)


_mount_layers()


def main(argv: list[str] | None = None) -> Any:
    """The console script."""
    try:
        return app(args=argv, prog_name="pbem")
    except UserError as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:
        if os.environ.get("PBEM_DEBUG"):
            raise
        print(
            f"pbem: internal error: {type(exc).__name__}: {exc} (PBEM_DEBUG=1 shows where)", file=sys.stderr
        )
        sys.exit(1)
