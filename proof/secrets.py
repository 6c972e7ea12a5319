"""Secrets: whatever the other players hold, a player is told exactly the same.

For each position of random bot games and each seat P, the state is stored as the game's current state
in a scratch database, and everything P can get out of the host is collected: P's text and HTML report
and the public one (rendered by the functions that write the reports mail sends), the archive page of
the game while it is not over (``pbem archive``), ``pbem status``
(text and JSON), the order template with and without ``--suggest``, and the answer to every order file
P can send (``check`` and ``submit``: the bot's legal orders and illegal variants of them). The reports
are written by :func:`pbem.render.reports.write_reports` itself, every seat's together as after a real turn,
so a table shared between seats' reports (:mod:`pbem.render.tables`) is shared here too. Then every
holding hidden from P is dealt anew (``Game.resample_hidden``) and the events addressed to other seats
are rewritten, the variant is stored the same way, and everything is collected again: any byte that
differs is a leak.

The seats read mixed languages, as a real table may: seat *i* reads ``LANGUAGES[i % 5]`` and the game
(observers, the public report) another one, ``LANGUAGES[n % 5]`` for *n* seats. Each seat's outputs are
collected in its own language (its stored report as mail sends it; template, status and order answers
inside :func:`pbem.core.i18n.language`), so the comparison is per language: a word that only one language's
catalog, glossary or template gets wrong (a hidden holding's translated word) is still a leak found.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session, select

from pbem.archive.page import build_page
from pbem.core import i18n
from pbem.core.codec import pack_json, unpack
from pbem.core.errors import UserError
from pbem.core.game import Event, Game
from pbem.play import orders, status
from pbem.play.create import create_game
from pbem.render import reports
from pbem.storage.history import dump_events, settle
from pbem.storage.models import GameRow, ReportRow, SubmissionRow, TurnRow
from proof.common import Figures, Position, RandomChance, cheap_passwords, playout, scratch_engine, settings
from proof.orders_variants import envelope, mutations, schema_words

#: illegal variants tried per seat and position
MUTATIONS = 4


def positions(game: Game, count: int) -> Iterator[Position]:
    """``count`` positions, every state of as many bot games as it takes."""
    made = 0
    for setting in settings(game, 10_000):
        for position in playout(setting):
            yield position
            made += 1
            if made >= count:
                return


class Scratch:
    """One scratch database per game, with one game per player count; a position is stored by
    overwriting that game's current state, as the turn driver leaves it."""

    def __init__(self, folder: Path, game: Game) -> None:
        self.game = game
        self.engine = scratch_engine(folder, f"secrets-{game.name}")
        self.passwords: dict[tuple[str, ...], dict[str, str]] = {}
        self.ids: dict[tuple[str, ...], str] = {}

    def game_id(self, position: Position) -> str:
        seats = position.setting.seats
        if seats not in self.ids:
            game_id = f"proof-{len(seats)}p"
            self.passwords[seats] = create_game(
                self.engine,
                self.game.name,
                game_id,
                [(s, f"{s}@example.org") for s in seats],
                seed=1,
                language=game_language(seats),
                seat_languages=seat_languages(seats),
            )
            self.ids[seats] = game_id
        return self.ids[seats]

    def store(self, game_id: str, turn: int, state: Any) -> None:
        _state, data, digest = settle(self.game, state)
        over = self.game.outcome(state) is not None or not self.game.pending(state)
        with Session(self.engine) as session:
            session.execute(delete(SubmissionRow).where(SubmissionRow.game_id == game_id))
            session.execute(
                update(GameRow)
                .where(GameRow.id == game_id)
                .values(
                    state_z=pack_json(data),
                    state_sha256=digest,
                    turn=turn,
                    status="finished" if over else "active",
                )
            )
            session.commit()


def seat_languages(seats: tuple[str, ...]) -> dict[str, str]:
    """Seat *i* reads ``LANGUAGES[i % 5]``: every language is read at a table of five."""
    return {seat: i18n.LANGUAGES[i % len(i18n.LANGUAGES)] for i, seat in enumerate(seats)}


def game_language(seats: tuple[str, ...]) -> str:
    """The game's language (observers, the public report): the one after the seats', so with fewer
    than five seats it is one no seat reads."""
    return i18n.LANGUAGES[len(seats) % len(i18n.LANGUAGES)]


def _answer(call: Callable[[], Any]) -> str:
    try:
        return str(call())
    except UserError as exc:
        return f"UserError: {exc}"


def bot_orders(position: Position) -> dict[str, Any]:
    """The bot's orders of every seat that owes some, at ``position`` as it stands."""
    game, state = position.game, position.state
    return {
        s: game.bot(state, s, RandomChance(f"{position.label}:bot:{s}")) for s in sorted(game.pending(state))
    }


def order_files(
    position: Position, seat: str, game_id: str, password: str, bots: dict[str, Any]
) -> list[str]:
    """The legal orders of ``seat`` (the bot's) and illegal variants, as order files."""
    game, state = position.game, position.state
    pending = game.pending(state)
    rng = random.Random(f"{position.label}:{seat}")
    mine = bots.get(seat)
    borrowed = [o for s, o in bots.items() if s != seat]
    words = sorted({w for d in pending.values() for w in schema_words(game, d)})
    base = mine if mine is not None else (borrowed[0] if borrowed else [])
    variants = [base, *mutations(base, words, borrowed, rng, MUTATIONS)]
    turn = game_turn(position)
    files = [envelope(game_id, seat, turn, password, v) for v in variants]
    files.append(envelope(game_id, seat, turn - 1, password, base))  # a stale turn
    return files


def game_turn(position: Position) -> int:
    return position.turn + 1


def outputs(
    scratch: Scratch,
    position: Position,
    state: Any,
    events: tuple[Event, ...],
    seat: str,
    files: list[str],
) -> dict[str, str]:
    """Everything ``seat`` can get out of the host while ``state`` is the game's current state, with
    ``files`` the order files it sends."""
    game_id = scratch.game_id(position)
    scratch.store(game_id, position.turn, state)
    out = stored_reports(scratch, game_id, state, position.turn, events, seat)
    with i18n.language(seat_languages(position.setting.seats)[seat]):
        out.update(answers(scratch, position, game_id, state, events, seat, files))
    return out


def answers(
    scratch: Scratch,
    position: Position,
    game_id: str,
    state: Any,
    events: tuple[Event, ...],
    seat: str,
    files: list[str],
) -> dict[str, str]:
    """What ``seat`` is answered in the current language: status, archive page, templates, and the
    ``check`` and ``submit`` of each order file."""
    out: dict[str, str] = {}
    entries = status.status(scratch.engine, game_id)
    out["status"] = status.describe(entries[0])
    out["status --json"] = json.dumps(entries, sort_keys=True)
    out.update(archive_page(scratch, game_id, position.turn, state, events))
    out["template"] = _answer(lambda: orders.template(scratch.engine, game_id, seat))
    out["template --suggest"] = _answer(lambda: orders.template(scratch.engine, game_id, seat, suggest=True))
    for i, text in enumerate(files):
        result = orders.check(scratch.engine, text)
        out[f"check[{i}]"] = "\n".join(result.errors) if result.errors else (result.preview or "")
        if i < 2:  # the legal orders and one variant go through submit too (stored, then cleared)
            receipt = orders.submit(scratch.engine, text)
            out[f"submit[{i}]"] = json.dumps([receipt.accepted, receipt.receipt, receipt.errors])
            scratch.store(game_id, position.turn, state)
    return out


#: when the scratch game's stored turn says it was played: the same for every variant
_PLAYED_AT = datetime(2026, 1, 1, tzinfo=UTC)


def archive_page(
    scratch: Scratch, game_id: str, turn: int, state: Any, events: tuple[Event, ...]
) -> dict[str, str]:
    """The archive page (``pbem archive``) of the game while it is not over, with ``state`` stored as
    its last turn (the setup before it): what anyone may be handed of a running game. A finished
    game's page shows every seat by design, so it is not collected."""
    game = scratch.game
    if game.outcome(state) is not None or not game.pending(state):
        return {}
    _state, data, digest = settle(game, state)
    with Session(scratch.engine) as session:
        session.execute(delete(TurnRow).where(TurnRow.game_id == game_id, TurnRow.number > 0))
        if turn == 0:
            session.execute(
                update(TurnRow)
                .where(TurnRow.game_id == game_id, TurnRow.number == 0)
                .values(state_z=pack_json(data), state_sha256=digest, events_z=pack_json(dump_events(events)))
            )
        else:
            session.add(
                TurnRow(
                    game_id=game_id,
                    number=turn,
                    state_z=pack_json(data),
                    state_sha256=digest,
                    orders_z=pack_json({}),
                    events_z=pack_json(dump_events(events)),
                    resolved_at=_PLAYED_AT,
                )
            )
        session.commit()
    return {"archive page": build_page(scratch.engine, game_id)}


def stored_reports(
    scratch: Scratch, game_id: str, state: Any, turn: int, events: tuple[Event, ...], seat: str
) -> dict[str, str]:
    """``seat``'s report and the public one, as :func:`pbem.render.reports.write_reports` stores them for mail
    (every seat's report of the turn rendered together, sharing the tables they may share)."""
    out: dict[str, str] = {}
    with Session(scratch.engine) as session:
        session.execute(delete(ReportRow).where(ReportRow.game_id == game_id))
        row = session.get(GameRow, game_id)
        assert row is not None
        reports.write_reports(session, scratch.game, row, state, turn, events)
        session.flush()
        for report in session.exec(
            select(ReportRow).where(ReportRow.game_id == game_id, ReportRow.seat.in_([seat, ""]))  # type: ignore[attr-defined]
        ):
            whom = report.seat or "public"
            out[f"report.txt[{whom}]"] = unpack(report.text_z)
            out[f"report.html[{whom}]"] = unpack(report.html_z)
        session.rollback()
    return out


def hidden_events(events: tuple[Event, ...], seat: str, rng: random.Random) -> tuple[Event, ...]:
    """The events, with those addressed to other seats rewritten: they must not reach ``seat``."""
    return tuple(
        e if e.visible_to(seat) else Event(f"secret {rng.randrange(10**9)}", e.to, {"n": rng.randrange(99)})
        for e in events
    )


def check_position(scratch: Scratch, position: Position, variants: int, figures: Figures) -> None:
    game = position.game
    game_id = scratch.game_id(position)
    bots = bot_orders(position)
    for seat in position.setting.seats:
        try:
            password = scratch.passwords[position.setting.seats][seat]
            files = order_files(position, seat, game_id, password, bots)
            seen = outputs(scratch, position, position.state, position.events, seat, files)
        except Exception as exc:  # a bug, not a leak: counted apart and shown
            figures.add("secrets.errors")
            figures.find(f"secrets: {position.label} seat {seat}: {type(exc).__name__}: {exc}")
            continue
        for v in range(variants):
            chance = RandomChance(f"{position.label}:resample:{seat}:{v}")
            other = game.resample_hidden(position.state, seat, chance)
            events = hidden_events(position.events, seat, random.Random(f"{position.label}:{seat}:{v}"))
            if game.dump_state(other) != game.dump_state(position.state):
                figures.add("secrets.variants_changed")
            figures.add("secrets.variants")
            try:
                again = outputs(scratch, position, other, events, seat, files)
            except Exception as exc:
                figures.add("secrets.errors")
                figures.find(
                    f"secrets: {position.label} seat {seat} variant {v}: {type(exc).__name__}: {exc}"
                )
                continue
            differ = sorted(k for k in seen if seen[k] != again.get(k))
            figures.add("secrets.outputs_compared", len(seen))
            for key in differ:
                name = "secrets.suggest_differs" if key == "template --suggest" else "secrets.leaks"
                figures.add(name)
                figures.find(f"{name}: {position.label}: {seat}'s {key} changes with others' hidden holdings")


def run_one(folder: Path, game_name: str, per_game: int, variants: int = 1) -> Figures:
    """:func:`run` for one game, by name: what a worker process of ``python -m proof`` runs."""
    from proof.common import shipped_games

    return run(folder, per_game, variants, [g for g in shipped_games() if g.name == game_name])


def run(folder: Path, per_game: int, variants: int = 1, games: list[Game] | None = None) -> Figures:
    """The secrets campaign: ``per_game`` positions of each game, ``variants`` resamplings per seat."""
    from proof.common import shipped_games

    figures = Figures()
    for name in ("secrets.leaks", "secrets.errors"):
        figures.set(name, 0, goal_zero=True)
    for name in ("secrets.positions", "secrets.variants", "secrets.variants_changed"):
        figures.set(name, 0)
    figures.set("secrets.outputs_compared", 0)
    figures.set("secrets.suggest_differs", 0)
    with cheap_passwords():
        for game in games or shipped_games():
            scratch = Scratch(folder, game)
            count = 0
            for position in positions(game, per_game):
                check_position(scratch, position, variants, figures)
                count += 1
            figures.add("secrets.positions", count)
            figures.set(f"secrets.positions.{game.name}", count)
            scratch.engine.dispose()
    return figures
