"""``pbem demo``: a whole game played by bots through the real submit and process path, with every
report of every turn written to disk and an index page to browse them. :mod:`pbem.cli.app` mounts
:data:`commands` (the ``demo`` command) as its own."""

from __future__ import annotations

import html
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive.page import write_page
from pbem.cli.common import example
from pbem.core import clock, registry
from pbem.core.codec import unpack
from pbem.core.errors import UserError
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.outbox import signin
from pbem.play.create import create_game
from pbem.play.orders import submit, template
from pbem.play.status import status
from pbem.play.turns import process
from pbem.render.screenshots import WIDTHS, write_mail_looks
from pbem.render.tables import table_slice
from pbem.storage.db import connect
from pbem.storage.models import ReportRow, SeatRow

DEFAULT_GAME = "reef-encounter"
#: where ``pbem serve`` listens by default: the demo's sign-in link points there
DEMO_WEB = "http://127.0.0.1:8000"
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank")
MAX_TURNS = 5000

commands = typer.Typer()


def run_demo(
    *,
    game_type: str = DEFAULT_GAME,
    players: int | None = None,
    seed: int = 1,
    db_url: str | None = None,
    out: Path = Path("demo-out"),
    say: Callable[[str], None] = print,
    every_game: bool = False,
    language: str | None = None,
) -> Path:
    """Play one game of ``game_type`` to the end with bots and write its reports under ``out``;
    returns the index page. Without ``db_url``, a fresh SQLite file in ``out``. Each game played gets
    its archive page (:mod:`pbem.archive.page`) beside the index; ``every_game`` plays one bot game of
    every other registered game too, for its archive page. ``language``: the game's, which every seat
    reads."""
    game = registry.require(game_type)
    count = players or min(max(3, game.min_players), game.max_players)
    if not game.min_players <= count <= game.max_players:
        raise UserError(f"{game.title} takes {game.min_players} to {game.max_players} players, not {count}")
    if count > len(NAMES):
        raise UserError(f"the demo seats at most {len(NAMES)} players")
    out.mkdir(parents=True, exist_ok=True)
    if db_url is None:
        for suffix in ("", "-wal", "-shm"):
            (out / f"demo.sqlite{suffix}").unlink(missing_ok=True)
        db_url = f"sqlite:///{out / 'demo.sqlite'}"
    engine = connect(db_url)
    game_id = f"demo-{seed}"
    issued = play_bots(engine, game.name, game_id, count, seed, language=language)
    say(f"{game.title}: game {game_id} with {', '.join(issued)} (seed {seed}), database {db_url}")
    pages = {game.title: _archive_page(engine, game_id, out)}
    others = [g for g in registry.games().values() if g.name != game.name] if every_game else []
    for other in others:
        other_count = min(max(3, other.min_players), other.max_players)
        other_id = f"demo-{other.name}-{seed}"
        play_bots(engine, other.name, other_id, other_count, seed, language=language)
        pages[other.title] = _archive_page(engine, other_id, out)
        say(f"{other.title}: game {other_id} played; archive page {pages[other.title]}")
    [entry] = status(engine, game_id)
    looks = _write_mail_looks(engine, game_id, out / "mail", entry["turns_resolved"])
    index = _write_reports(engine, game_id, game.title, out, entry, pages, _mail_links(out / "mail", looks))
    ranking = ", ".join(f"{entry['places'][s]}. {s} ({entry['scores'][s]})" for s in entry.get("ranking", []))
    say(f"played {entry['turns_resolved']} turns; {ranking}")
    for line in web_hint(engine, db_url, out, game_id, next(iter(issued))):
        say(line)
    say(looks if isinstance(looks, str) else f"report mails as a mail client shows them: {out / 'mail'}")
    say(f"reports: {index.resolve()}")
    return index


def web_hint(engine: Engine, db_url: str, out: Path, game_id: str, seat: str) -> list[str]:
    """How to open the demo game in a browser: ``pbem serve`` on the demo's database with a key kept in
    ``out/web-secret`` (made once, readable by its owner only; never printed), and a sign-in link for
    ``seat`` signed with it."""
    key_file = out / "web-secret"
    if not key_file.is_file():
        descriptor = os.open(key_file, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
    key = key_file.read_text(encoding="utf-8").strip()
    with Session(engine) as session:
        row = session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat)).one()
    url = signin.link(signin.LinkSettings(DEMO_WEB, key), game_id, seat, row.link_generation, clock.utc())
    return [
        f"on the web: PBEM_WEB_SECRET_FILE={key_file} pbem serve --db {db_url}",
        f"  then open {url} (signed in as {seat}); the game's public page: {DEMO_WEB}/archive/{game_id}",
    ]


def play_bots(
    engine: Engine,
    game_type: str,
    game_id: str,
    count: int,
    seed: int,
    *,
    turns: int | None = None,
    language: str | None = None,
) -> dict[str, str]:
    """Create ``game_id`` and play it with bots to the end (or for ``turns`` turns); returns each seat's
    password."""
    seats = [(name, f"{name}@example.org") for name in NAMES[:count]]
    issued = create_game(engine, game_type, game_id, seats, seed=seed, language=language)
    for _ in range(MAX_TURNS):
        [entry] = status(engine, game_id)
        if entry["finished"] or entry["status"] != "active" or entry["turns_resolved"] == turns:
            return issued
        for seat in entry["awaited"]:
            text = template(engine, game_id, seat, suggest=True).replace(
                PASSWORD_PLACEHOLDER, issued[seat], 1
            )
            receipt = submit(engine, text)
            if not receipt.accepted:  # the bot broke the game's own rules: a bug to show, not hide
                raise RuntimeError(f"{seat}'s bot orders were rejected: {receipt.errors}")
        if not process(engine, game_id):
            raise RuntimeError(f"turn {entry['turn']} did not resolve with every order in")
    raise RuntimeError(f"{game_id} did not end within {MAX_TURNS} turns")


def _archive_page(engine: Engine, game_id: str, out: Path) -> str:
    name = f"archive-{game_id}.html"
    write_page(engine, game_id, out / name)
    return name


def _write_mail_looks(engine: object, game_id: str, folder: Path, last: int) -> list[Path] | str:
    """Each seat's report mail of the middle and the last turn, and screenshots of it at 600 and 375
    px (:mod:`pbem.render.screenshots`), for people to look at."""
    wanted = sorted({last // 2, last})
    with Session(engine) as session:  # type: ignore[arg-type]
        rows = list(
            session.exec(
                select(ReportRow)
                .where(ReportRow.game_id == game_id, ReportRow.seat != "", ReportRow.turn.in_(wanted))  # type: ignore[attr-defined]
                .order_by(ReportRow.turn, ReportRow.seat)
            )
        )
    looks = ((f"{r.seat}-turn-{r.turn:04d}", unpack(r.html_z), table_slice(r.table_at)) for r in rows)
    return write_mail_looks(looks, folder)


def _mail_links(folder: Path, looks: list[Path] | str) -> str:
    """The index's section on the report mails: each mail as a mail client renders it, and its
    screenshots at each width; or, without screenshots, why (no Chromium: what installs it)."""
    shots = {} if isinstance(looks, str) else {shot.name for shot in looks}
    items = []
    for page in sorted(folder.glob("*.html")):
        widths = [
            f'<a class="shot" href="mail/{page.stem}-{width}.png">{width} px</a>'
            for width in WIDTHS
            if f"{page.stem}-{width}.png" in shots
        ]
        items.append(f'<a href="mail/{page.name}">{html.escape(page.stem)}</a> {" ".join(widths)}')
    why = f"<p>{html.escape(looks)}</p>" if isinstance(looks, str) else ""
    return f"<h2>Report mails</h2>\n<p>As a mail client shows them.</p>\n{why}<p>{' · '.join(items)}</p>"


def _write_reports(
    engine: object,
    game_id: str,
    title: str,
    out: Path,
    entry: dict,
    pages: dict[str, str],
    mail: str,
) -> Path:
    with Session(engine) as session:  # type: ignore[arg-type]
        rows = list(
            session.exec(select(ReportRow).where(ReportRow.game_id == game_id).order_by(ReportRow.turn))
        )
    links: dict[str, list[str]] = {}
    for row in rows:
        folder = out / (row.seat or "public")
        folder.mkdir(exist_ok=True)
        stem = f"turn-{row.turn:04d}"
        (folder / f"{stem}.html").write_text(unpack(row.html_z), encoding="utf-8")
        (folder / f"{stem}.txt").write_text(unpack(row.text_z), encoding="utf-8")
        links.setdefault(row.seat or "public", []).append(
            f'<a href="{folder.name}/{stem}.html">{row.turn}</a> '
            f'<a class="txt" href="{folder.name}/{stem}.txt">txt</a>'
        )
    result = ""
    if entry.get("finished"):
        result = (
            "<p>"
            + ", ".join(
                f"{entry['places'][s]}. {html.escape(s)}: {entry['scores'][s]}" for s in entry["ranking"]
            )
            + "</p>"
        )
    sections = "\n".join(
        f"<h2>{html.escape(seat)}</h2>\n<p>{' · '.join(items)}</p>" for seat, items in links.items()
    )
    archives = " · ".join(
        f'<a class="archive" href="{html.escape(n)}">{html.escape(t)}</a>' for t, n in pages.items()
    )
    index = out / "index.html"
    index.write_text(
        f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} · {game_id}</title>
<style>body{{font:15px/1.5 sans-serif;max-width:1000px;margin:16px auto;padding:0 12px}}
a{{color:#1f6f8b}} a.txt{{font-size:11px;color:#5b6675}}</style></head>
<body><h1>{html.escape(title)} · {game_id}</h1>
<p>Every player's report after every turn (HTML, and plain text as mailed).</p>
<p>Watch a game turn by turn (one self-contained page each): {archives}</p>
{result}
{sections}
{mail}
</body></html>
""",
        encoding="utf-8",
    )
    return index


@commands.command(
    epilog=example(
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
