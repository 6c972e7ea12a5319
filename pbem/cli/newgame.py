"""``pbem new``: a game set up, its seats, settings and stand-ins checked, the passwords shown once.
:mod:`pbem.cli.app` mounts :data:`commands` as its own."""

from __future__ import annotations

import json
import secrets
from typing import Annotated, Any

import typer

from pbem.cli.common import (
    AsJson,
    Db,
    NowOption,
    example,
    pair,
    parse_now,
    said_welcome,
    welcome,
)
from pbem.cli.lobby import open_game
from pbem.core import registry
from pbem.core.chance import derived_rng
from pbem.core.dice import commitment
from pbem.core.errors import UserError
from pbem.cron import deadlines
from pbem.mail.gm import check_address, set_game_master
from pbem.play import create
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
        "pbem new reef-encounter --id solo-1 --player ann=ann@example.org --bot b=strong --bot c=normal",
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
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            help="A seat the stand-in plays, as SEAT=LEVEL (easy, normal, strong), seated after the "
            "players; repeat. With one player: a solo game, each turn resolved once its orders are in.",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of every draw (default: a secret random one).")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="A game option as KEY=VALUE.")] = None,
    deadline: Annotated[str | None, typer.Option(help="Time for each turn, e.g. 48h or 2d.")] = None,
    grace: Annotated[str | None, typer.Option(help="Grace after a deadline, e.g. 1h.")] = None,
    nmr: Annotated[
        str, typer.Option(help="Missed orders after the deadline: wait, bot, or bot:LEVEL (normal, strong).")
    ] = "wait",
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
    open_seats: Annotated[
        int | None,
        typer.Option("--open", help="Announce the game with N open seats that players join by mail."),
    ] = None,
    start_by: Annotated[
        str | None, typer.Option(help="With --open: start (or cancel) on this date, e.g. 2026-12-20T18:00.")
    ] = None,
    fill_with_bots: Annotated[
        bool, typer.Option("--fill-with-bots", help="With --start-by: bots take the seats still free then.")
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
    if open_seats is not None:
        if player or gm or shuffle_seats or any("=" in v for v in [*(tz or []), *(lang or [])]):
            raise typer.BadParameter(
                "an open game takes no --player, --gm, --shuffle-seats, or a seat's --tz or --lang: "
                "each player names their own language when joining"
            )
        settings = {
            "options": dict(pair(o, "--option") for o in option or []),
            "turn_seconds": parse_duration(deadline) if deadline else None,
            "grace_seconds": parse_duration(grace) if grace else 0,
            **{"nmr": nmr, "abandon_after": abandon_after, "require_from_match": require_from_match},
            **{"absence": absence, "absence_days": absence_days, "press": press},
            "language": _languages(lang or [])["language"],
            "timezone": _zones(tz or [])["timezone"],
            **({"seed": seed} if seed is not None else {}),
        }
        open_game(db, game, game_id, open_seats, settings, start_by, fill_with_bots, now)
        return
    if start_by or fill_with_bots:
        raise typer.BadParameter("--start-by and --fill-with-bots go with --open N")
    if not game_id or not player:
        raise typer.BadParameter("a new game needs --id and at least one --player NAME=EMAIL")
    standins = [pair(b, "--bot") for b in bot or []]
    bots = dict(standins)
    # a seat named twice is said so by the seats' check, not lost to the dict
    seats = [pair(p, "--player") for p in player] + [(name, "") for name, _level in standins]
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
        bots=bots,
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
    for seat, level in bots.items():
        typer.echo(f"  {seat:<12} the stand-in, {level}")
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
