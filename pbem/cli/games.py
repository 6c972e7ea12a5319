"""``pbem``'s commands of a game's life: ``new``, ``submit``, ``check``, ``process``, ``report``,
``status``. :mod:`pbem.cli.app` mounts :data:`commands` as its own."""

from __future__ import annotations

import json
import secrets
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
    NowOption,
    example,
    pair,
    parse_now,
    reader,
    said_welcome,
    welcome,
)
from pbem.core import clock, registry
from pbem.core.chance import derived_rng
from pbem.core.dice import commitment
from pbem.core.errors import UserError
from pbem.core.i18n import _
from pbem.cron import deadlines
from pbem.mail.extract import point_at
from pbem.mail.gm import check_address, set_game_master
from pbem.outbox import notices as pushes
from pbem.play import create, orders, turns
from pbem.play import status as status_service
from pbem.render import reports
from pbem.storage.db import connect

commands = typer.Typer()


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


@commands.command(
    epilog=example(
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
    # single flags, not --x/--no-x pairs (off is the default): a pair's two long names leave no room
    # in an 80-column --help, which cut them to "--require-from-ma…"
    require_from_match: Annotated[
        bool, typer.Option("--require-from-match", help="Mailed orders must come from the seat's address.")
    ] = False,
    shuffle_seats: Annotated[
        bool, typer.Option("--shuffle-seats", help="Seat the players in an order drawn from the seed.")
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
    seats = [pair(p, "--player") for p in player]
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise typer.BadParameter(f"the seed must be a whole number from 0 to {MAX_SEED}", param_hint="--seed")
    seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
    if gm is not None:  # checked before the game exists: a bad address creates nothing
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
        options=dict(pair(o, "--option") for o in option or []),
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
        gm_password = set_game_master(engine, game_id, gm)
    colours = create.seat_colours(engine, game_id)
    clashes = create.colour_clashes(colours)
    if clashes:
        typer.echo(
            f"note: {'; '.join(clashes)}: the game deals colours by seating order; name seats after "
            "people to avoid confusion",
            err=True,
        )
    welcomed = [] if no_welcome else welcome(db, game_id, issued, now)
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
    said_welcome(welcomed)


def _languages(values: list[str]) -> dict[str, Any]:
    """``--lang hu --lang ann=cs`` as create_game's ``language`` and ``seat_languages``."""
    game_language = [v for v in values if "=" not in v]
    if len(game_language) > 1:
        raise typer.BadParameter(f"one game language, not {', '.join(game_language)}; a seat's is SEAT=LANG")
    return {
        "language": game_language[0] if game_language else None,
        "seat_languages": dict(pair(v, "--lang") for v in values if "=" in v),
    }


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
        done = turns.process(engine, game_id, fill_missing=fill_missing, after_turn=_queue_notices)
        resolved[game_id] = done
        if not as_json:
            said = f"resolved turn {', '.join(map(str, done))}" if done else _waits(engine, game_id)
            typer.echo(f"{game_id}: {said}")
    if as_json:
        typer.echo(json.dumps([{"id": g, "resolved": done} for g, done in resolved.items()], indent=1))


def _queue_notices(session: Any, row: Any, _number: int, waiting: tuple[str, ...]) -> None:
    pushes.queue_turn(session, row, waiting, clock.utc())


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
