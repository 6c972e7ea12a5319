"""The ``pbem`` command: parse, call one service, print. Exit codes: 0 ok, 1 rejected input, 2 usage,
3 internal error (a bug).

No Python traceback reaches a user: a :class:`~pbem.core.errors.UserError` is one line on stderr and exit
code 1; anything else is a bug, shown as one line too (exit code 3, so a script can tell it from rejected
input), and in full with ``PBEM_DEBUG=1``.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pbem import __version__
from pbem.archive import files as archive
from pbem.archive import replay, verifying
from pbem.cli import common
from pbem.cli.common import NowOption, parse_now
from pbem.cli.demo import DEFAULT_GAME, run_demo
from pbem.core import registry
from pbem.core.chance import derived_rng
from pbem.core.dice import commitment
from pbem.core.errors import UserError
from pbem.cron import deadlines
from pbem.intake.schema import order_file_schema
from pbem.play import create, orders, turns
from pbem.play import status as status_service
from pbem.render import reports
from pbem.storage.db import connect

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


#: the exit code of a bug (1 is rejected input, 2 a usage error)
INTERNAL_ERROR = 3
#: a seed is a non-negative 64-bit number (the database column, and what ``new`` draws)
MAX_SEED = 2**63 - 1
#: the longest deadline or grace a game master may give (the clock's arithmetic stays far from its limits)
MAX_DURATION = 3650 * 86_400


def _zones(given: list[str]) -> dict[str, Any]:
    """``--tz ZONE`` (the game's) and ``--tz SEAT=ZONE`` (a seat's) as create_game's arguments."""
    game_zone, seats = "UTC", {}
    for text in given:
        seat, sep, zone_name = text.partition("=")
        if sep:
            seats[seat.strip()] = zone_name.strip()
        else:
            game_zone = text.strip()
    return {"timezone": game_zone, "seat_zones": seats}


def parse_duration(text: str) -> int:
    """``48h``, ``2d``, ``90m``, ``1d12h`` as seconds: the cron layer's grammar, one for the whole host,
    a bad value being a usage error here."""
    try:
        seconds = deadlines.parse_duration(text)
    except UserError as exc:
        raise typer.BadParameter(str(exc)) from None
    if seconds > MAX_DURATION:
        raise typer.BadParameter(f"{text!r} is longer than ten years (3650d): write a shorter time")
    return seconds


@app.command(
    epilog=_example(
        "pbem new reef-encounter --id reef-7 --player ann=ann@example.org --player bo=bo@example.org "
        "--deadline 48h",
        "pbem new reef-encounter --id reef-8 --player ann=ann@example.org --player bo=bo@example.org "
        "--lang hu --lang ann=cs",
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
    lang: Annotated[
        list[str] | None,
        typer.Option(
            "--lang", help="The game's language (en, hu, cs, zh, ru), or a seat's as SEAT=LANG; repeat."
        ),
    ] = None,
    tz: Annotated[
        list[str] | None,
        typer.Option("--tz", help="The game's time zone (Europe/Budapest), or a seat's (ann=Asia/Shanghai)."),
    ] = None,
    absence: Annotated[
        str, typer.Option(help="While a seat is away: bot (plays its turns) or extend (deadlines wait).")
    ] = "extend",
    absence_days: Annotated[int, typer.Option(help="Days of time away each seat may take.")] = 14,
    press: Annotated[
        str,
        typer.Option(
            help="Press, players' mail to each other through the host: none, public (to all only) or "
            "private (to all or to chosen seats)."
        ),
    ] = "private",
    no_welcome: Annotated[
        bool, typer.Option("--no-welcome", help="Mail no welcome (you hand the passwords out yourself).")
    ] = False,
    gm: Annotated[
        str | None,
        typer.Option(
            "--gm", help="The game master's address: may mail pause, extend, ... (password shown once)."
        ),
    ] = None,
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
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise typer.BadParameter(f"the seed must be a whole number from 0 to {MAX_SEED}", param_hint="--seed")
    seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
    if gm is not None:  # checked before the game exists: a bad address creates nothing
        from pbem.mail.gm import check_address

        gm = check_address(gm)
    if shuffle_seats:
        derived_rng(seed, 0, 0, "seats").shuffle(seats)
    engine = connect(db)
    issued = create.create_game(
        engine,
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
        **_languages(lang or []),
        **_zones(tz or []),
        absence=absence,
        absence_days=absence_days,
        press=press,
    )
    emails = dict(seats)
    gm_password = None
    if gm is not None:
        from pbem.mail.gm import set_game_master

        gm_password = set_game_master(engine, game_id, gm)
    colours = create.seat_colours(engine, game_id)
    clashes = create.colour_clashes(colours)
    if clashes:
        typer.echo(
            f"note: {'; '.join(clashes)}: the game deals colours by seating order; name seats after "
            "people to avoid confusion",
            err=True,
        )
    welcomed = [] if no_welcome else _welcome(db, game_id, issued, now)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "id": game_id,
                    "game": game,
                    "seats": [
                        {"seat": s, "email": emails[s], "password": pw, "colour": colours.get(s)}
                        for s, pw in issued.items()
                    ],
                    "dice_commitment": commitment(seed),
                    **({"gm": {"email": gm, "password": gm_password}} if gm else {}),
                },
                indent=1,
            )
        )
        return
    typer.echo(f"created {game_id} ({game}); passwords, shown this once:")
    for seat, password in issued.items():
        typer.echo(f"  {seat:<12} {emails[seat]:<32} {password}")
    typer.echo(f"dice commitment (in every report; the seed is revealed at the end): {commitment(seed)}")
    if gm:
        typer.echo(f"game master {gm}; password, shown this once: {gm_password}")
    _said_welcome(welcomed)


def _languages(values: list[str]) -> dict[str, Any]:
    """``--lang hu --lang ann=cs`` as create_game's ``language`` and ``seat_languages``."""
    game_language = [v for v in values if "=" not in v]
    if len(game_language) > 1:
        raise typer.BadParameter(f"one game language, not {', '.join(game_language)}; a seat's is SEAT=LANG")
    return {
        "language": game_language[0] if game_language else None,
        "seat_languages": dict(_pair(v, "--lang") for v in values if "=" in v),
    }


def _welcome(db: str | None, game_id: str, issued: dict[str, str], now: str | None) -> list[str]:
    """Queue each seat's welcome mail (password, how to play, first report); the seats welcomed."""
    from pbem.mail.welcome import queue_welcomes
    from pbem.outbox.errors import MailError

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
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Store orders: exit 0 when every file is accepted (with its receipt), 1 when any is rejected.

    A rejected file gets every error of the first stage it fails: reading the file (one), the
    envelope (each field), the shape of the steps (each step), then the rules, checked step by step in
    order: the first step the rules refuse (later steps depend on it)."""
    engine = connect(db, create=False)
    rejected = 0
    answers = []
    for path in files:
        receipt = orders.submit(engine, _read_input(path), source="file")
        rejected += not receipt.accepted
        if as_json:
            answers.append(
                {
                    "file": path,
                    "accepted": receipt.accepted,
                    "game": receipt.game_id,
                    "seat": receipt.seat,
                    "turn": receipt.turn,
                    "receipt": receipt.receipt,
                    "errors": receipt.errors,
                }
            )
        elif receipt.accepted:
            typer.echo(
                f"{path}: accepted for {receipt.game_id}, turn {receipt.turn}, {receipt.seat} "
                f"(receipt {receipt.receipt})"
            )
        else:
            typer.echo(f"{path}: rejected", err=True)
            for error in receipt.errors:
                typer.echo(f"  {error}", err=True)
    if as_json:
        typer.echo(json.dumps(answers, indent=1, ensure_ascii=False))
    if rejected:
        raise typer.Exit(1)


@app.command(epilog=_example("pbem check red-turn12.yaml"))
def check(
    file: Annotated[str, typer.Argument(help="An order file (YAML); - reads standard input.")],
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Dry run of submit: stores nothing, sends nothing.

    Rejected orders: the errors, as submit would give them (exit 1). Legal orders: a preview (exit 0):
    your report as it will be after them when nothing in the turn is left to chance; otherwise what
    your orders do up to the first draw (or the first thing only others can see), then the table as
    it stands, since the rest happens when the turn resolves. A turn that waits for other players'
    orders shows the table as it stands."""
    result = orders.check(connect(db, create=False), _read_input(file))
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
        done = turns.process(engine, game_id, fill_missing=fill_missing)
        resolved[game_id] = done
        if not as_json:
            said = f"resolved turn {', '.join(map(str, done))}" if done else "nothing to resolve"
            typer.echo(f"{game_id}: {said}")
    if as_json:
        typer.echo(json.dumps([{"id": g, "resolved": done} for g, done in resolved.items()], indent=1))


@app.command(
    epilog=_example(
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


@app.command(epilog=_example("pbem status", "pbem status reef-7 --json"))
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


@app.command(
    "export", epilog=_example("pbem export reef-7 -o reef-7.yaml", "pbem export reef-7 -o reef-7.json")
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


@app.command(
    "archive",
    epilog=_example("pbem archive reef-7 -o reef-7.html"),
)
def archive_command(
    game_id: Annotated[str, typer.Argument(help="The game.")],
    output: Annotated[str, typer.Option("-o", "--output", help="The HTML file to write.")],
    db: Db = None,
) -> None:
    """Write a self-contained page that replays the game (slider, buttons, arrow keys, play); a
    finished game shows every seat and carries its archive, a running one only the public table."""
    from pbem.archive.page import write_page

    size = write_page(connect(db, create=False), game_id, output)
    typer.echo(f"{game_id}: archive page written to {output} ({size:,} bytes)")


@app.command("import", epilog=_example("pbem import reef-7.yaml", "pbem import reef-7.yaml --id reef-7-copy"))
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
    done = archive.import_game(connect(db), file, game_id=game_id)
    new_id, issued = done.id, done.seats
    welcomed = [] if no_welcome else _welcome(db, new_id, issued, None)
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
    _said_welcome(welcomed)


@app.command(
    epilog=_example(
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
    typer.echo(orders.template(connect(db, create=False), game_id, player, suggest=suggest), nl=False)


@app.command(
    epilog=_example(
        "pbem demo", "pbem demo --game coral-divers --players 4 --seed 7 --out /tmp/cd", "pbem demo --lang hu"
    )
)
def demo(
    game: Annotated[str, typer.Option(help="The game to play.")] = DEFAULT_GAME,
    players: Annotated[int | None, typer.Option(help="How many bot players.")] = None,
    seed: Annotated[int, typer.Option(help="The game's seed.")] = 1,
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: a fresh file in --out).")
    ] = None,
    out: Annotated[Path, typer.Option(help="Where the reports go.")] = Path("demo-out"),
    lang: Annotated[
        str | None, typer.Option("--lang", help="The language every player reads: en, hu, cs, zh, ru.")
    ] = None,
    every_game: Annotated[
        bool, typer.Option("--every-game", help="Also play every other game, for its archive page.")
    ] = False,
) -> None:
    """Play a whole game with bots through submit and process; write every report and its archive
    page to disk."""
    run_demo(
        game_type=game,
        players=players,
        seed=seed,
        db_url=db,
        out=out,
        say=typer.echo,
        language=lang,
        every_game=every_game,
    )


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


def _mount_layers() -> None:
    """``pbem mail …`` and ``pbem tick`` with the game master's commands, from their own packages."""
    try:
        from pbem.cli.mail import app as mail_app
    except ImportError:  # a layer that is not there leaves the rest of the command working
        pass
    else:
        app.add_typer(mail_app, name="mail")
    try:
        from pbem.cli.cron import register
    except ImportError:
        pass
    else:
        register(app)
    from pbem.cli.fair import register as register_fair  # verify, calendar, away (issue 17)

    register_fair(app)


_mount_layers()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, help="Print pbem's version and exit.", callback=_show_version
        ),
    ] = False,
) -> None:
    """Board games played by email: YAML orders in, rules checked, turns resolved, reports out."""


#: what an option's value is called in help, where its name alone does not say
METAVARS = {
    "--id": "ID",
    "--player": "NAME=EMAIL",
    "--seed": "N",
    "--option": "KEY=VALUE",
    "--deadline": "DURATION",
    "--grace": "DURATION",
    "--remind": "DURATION",
    "--outage": "DURATION",
    "--lease": "DURATION",
    "--nmr": "wait|bot",
    "--abandon-after": "N",
    "--db": "URL",
    "--turn": "N",
    "--to-turn": "N",
    "--format": "text|html",
    "--output": "FILE",
    "--decision": "KIND",
    "--players": "N",
    "--out": "DIR",
    "--now": "TIME",
    "--config": "FILE",
    "--log": "FILE",
    "--maildir": "DIR",
    "--jobs": "N",
    "--game": "GAME",
    "--host": "NAME",
}


def _tidy(command: Any) -> Any:
    """Help as a person reads it: values named (``--player NAME=EMAIL``), no ``<bool>``/``<str>``
    placeholders for flags and arguments, and each paragraph of a docstring one flowing paragraph
    (its source line breaks are not the terminal's)."""
    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False) or param.param_type_name == "argument":
            shown: str | None = None
        else:
            long = next((o for o in param.opts if o.startswith("--")), param.opts[0])
            shown = METAVARS.get(long, (param.name or "value").upper())
        param.display_type_rich = lambda ctx=None, _shown=shown: _shown
    original = command.get_help_option

    def help_option(ctx: Any, _original: Any = original) -> Any:
        option = _original(ctx)
        if option is not None:
            option.display_type_rich = lambda ctx=None: None
        return option

    command.get_help_option = help_option
    if getattr(command, "help", None):
        command.help = _flow_paragraphs(command.help)
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)
    return command


def _flow_paragraphs(text: str) -> str:
    import inspect
    import re

    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(re.sub(r"\s*\n\s*", " ", p) for p in paragraphs)


def main(argv: list[str] | None = None) -> Any:
    """The console script."""
    try:
        return _tidy(typer.main.get_command(app))(args=argv, prog_name="pbem")
    except UserError as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:
        if os.environ.get("PBEM_DEBUG"):
            raise
        known = common.known_failure(exc)
        if known:
            print(f"pbem: {known}", file=sys.stderr)
            sys.exit(1)
        print(
            f"pbem: internal error: {type(exc).__name__}: {exc} (PBEM_DEBUG=1 shows where)", file=sys.stderr
        )
        sys.exit(INTERNAL_ERROR)
