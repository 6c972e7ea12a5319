"""Players against each other: what one seat may not do to another, and two submissions racing.

Each case is sent through :func:`pbem.play.orders.submit` (or the ``pbem`` commands, for the races) and its
answer asserted: orders under another player's name, a wrong, empty or missing password, a seat that
does not exist, the password of another game, orders for a past or a future turn, orders from a seat
that owes none, orders after the end. A later submission replaces an earlier one until the turn
resolves, and the turn resolves with it. Two ``pbem submit`` processes for the same seat race each
other and a ``pbem process``: the turn is recorded once, with one of the two, and at most one of them
stays accepted.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.codec import unpack_json
from pbem.core.game import GameError
from pbem.play import orders, turns
from pbem.play.create import create_game
from pbem.storage.history import current_state, game_row
from pbem.storage.models import SubmissionRow, TurnRow
from proof.common import Figures, RandomChance, scratch_engine, shipped_games
from proof.orders_variants import envelope, mutations, schema_words

SEATS = ("ann", "bob", "cy")


class Table:
    """A game of ``game_name`` in ``engine`` with each seat's password and the state as it stands."""

    def __init__(self, engine: Engine, game_name: str, game_id: str) -> None:
        self.engine = engine
        self.game = next(g for g in shipped_games() if g.name == game_name)
        self.id = game_id
        seats = SEATS[: max(self.game.min_players, 3)]
        self.passwords = create_game(
            engine, game_name, game_id, [(s, f"{s}@example.org") for s in seats], seed=5
        )

    def state(self) -> Any:
        with Session(self.engine) as session:
            return current_state(self.game, game_row(session, self.id))

    def turn(self) -> int:
        with Session(self.engine) as session:
            return game_row(session, self.id).turn + 1

    def bot(self, seat: str, salt: str = "") -> Any:
        return self.game.bot(self.state(), seat, RandomChance(f"{seat}{salt}"))

    def file(
        self, seat: str, *, password: str | None = None, turn: int | None = None, orders: Any = None
    ) -> str:
        return envelope(
            self.id,
            seat,
            self.turn() if turn is None else turn,
            self.passwords.get(seat, "no-such-seat-00") if password is None else password,
            self.bot(seat) if orders is None else orders,
        )

    def submissions(self, seat: str, turn: int) -> list[SubmissionRow]:
        with Session(self.engine) as session:
            return list(
                session.exec(
                    select(SubmissionRow)
                    .where(
                        SubmissionRow.game_id == self.id,
                        SubmissionRow.seat == seat,
                        SubmissionRow.turn == turn,
                    )
                    .order_by(SubmissionRow.id)
                )
            )

    def turn_rows(self, number: int) -> list[TurnRow]:
        with Session(self.engine) as session:
            return list(
                session.exec(select(TurnRow).where(TurnRow.game_id == self.id, TurnRow.number == number))
            )


def _code(receipt: orders.Receipt) -> str:
    """The error code of a rejection (``auth.failed``), or ``accepted``."""
    if receipt.accepted:
        return "accepted"
    return receipt.errors[0].rsplit("[", 1)[-1].rstrip("]") if receipt.errors else "rejected without a reason"


def single_cases(folder: Path) -> list[tuple[str, str, str]]:
    """(case, expected, got) for every one-submission case."""
    engine = scratch_engine(folder, "rivals")
    reef = Table(engine, "reef-encounter", "rivals-reef")  # setup: every seat owes orders at once
    coral = Table(engine, "coral-divers", "rivals-coral")  # one seat at a time
    out: list[tuple[str, str, str]] = []

    def case(name: str, expected: str, text: str) -> orders.Receipt:
        receipt = orders.submit(engine, text)
        out.append((name, expected, _code(receipt)))
        return receipt

    ann, bob = "ann", "bob"
    case("orders under another player's name", "auth.failed", reef.file(bob, password=reef.passwords[ann]))
    out.append(
        (
            "…and nothing is stored for that player",
            "[]",
            json.dumps([s.status for s in reef.submissions(bob, 1) if s.status != "rejected"]),
        )
    )
    case("a wrong password", "auth.failed", reef.file(ann, password="tulip-frog-42"))
    case("an empty password", "envelope.string_too_short", reef.file(ann, password=""))
    case(
        "a seat that does not exist", "auth.failed", reef.file("zed", password=reef.passwords[ann], orders=[])
    )
    case("the password of another game", "auth.failed", reef.file(ann, password=coral.passwords[ann]))
    case("orders for a past turn", "turn.stale", reef.file(ann, turn=0))
    case("orders for a future turn", "turn.future", reef.file(ann, turn=2))
    waiting = set(coral.game.pending(coral.state()))
    idle = next(s for s in coral.passwords if s not in waiting)
    case(
        "orders from a seat that owes none", "turn.not_yours", coral.file(idle, orders=[{"surface": ["a1"]}])
    )
    no_password = "\n".join(line for line in reef.file(ann).splitlines() if not line.startswith("password:"))
    case("no password at all", "envelope.missing", no_password)

    first, second = reef.bot(ann), _other_orders(reef, ann)
    case("orders", "accepted", reef.file(ann, orders=first))
    case("later orders for the same turn", "accepted", reef.file(ann, orders=second))
    statuses = [s.status for s in reef.submissions(ann, 1) if s.status != "rejected"]
    out.append(
        ("the earlier orders are superseded", json.dumps(["superseded", "accepted"]), json.dumps(statuses))
    )
    for seat in reef.passwords:
        if seat != ann:
            orders.submit(engine, reef.file(seat))
    turns.process(engine, reef.id)
    resolved = reef.turn_rows(1)
    used = unpack_json(resolved[0].orders_z)[ann] if resolved else None
    expected_used = json.loads(reef.submissions(ann, 1)[-1].orders_json or "null")
    out.append(("the turn resolves with the later orders", json.dumps(expected_used), json.dumps(used)))
    case("orders for the turn just resolved", "turn.stale", reef.file(ann, turn=1, orders=second))

    finished = Table(engine, "coral-divers", "rivals-over")
    for _ in range(500):
        if not turns.process(engine, finished.id, fill_missing=True):
            break
    case("orders after the end", "game.over", finished.file(ann, turn=finished.turn(), orders=[]))
    engine.dispose()
    return out


def _other_orders(table: Table, seat: str) -> Any:
    """Legal orders of ``seat`` other than the bot's: the first variant of them that the rules take."""
    first, state = table.bot(seat), table.state()
    decision = table.game.pending(state)[seat]
    words = schema_words(table.game, decision)
    for other in mutations(first, words, [], random.Random(seat), 60):
        try:
            table.game.check(state, seat, table.game.order_model(decision).model_validate(other))
        except (ValidationError, GameError):
            continue
        return other
    raise AssertionError(f"{table.game.name}: no other legal orders found for {seat}")


def race(folder: Path, n: int) -> list[str]:
    """Two ``pbem submit`` for one seat and a ``pbem process`` at once; what went wrong, if anything."""
    engine = scratch_engine(folder, f"race-{n}")
    table = Table(engine, "reef-encounter", "race")
    seat = "ann"
    for other in table.passwords:
        if other != seat:
            assert orders.submit(engine, table.file(other)).accepted
    a, b = table.bot(seat), _other_orders(table, seat)
    paths = []
    for name, value in (("a", a), ("b", b)):
        path = folder / f"race-{n}-{name}.yaml"
        path.write_text(table.file(seat, orders=value))
        paths.append(path)
    pbem = str(Path(sys.executable).with_name("pbem"))
    url = engine.url.render_as_string(hide_password=False)
    commands = [[pbem, "submit", str(p), "--db", url] for p in paths] + [
        [pbem, "process", "race", "--db", url]
    ]
    if n % 2:
        commands.reverse()
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c in commands]
    for proc in procs:
        proc.communicate(timeout=300)
    problems = []
    subs = [s for s in table.submissions(seat, 1) if s.status != "rejected"]
    live = [s for s in subs if s.status in ("accepted", "consumed")]
    if len(live) != 1:
        problems.append(f"{len(live)} submissions of {seat} are live: {[s.status for s in subs]}")
    turns.process(engine, table.id)
    rows = table.turn_rows(1)
    if len(rows) != 1:
        problems.append(f"turn 1 was recorded {len(rows)} times")
    elif live:
        used = unpack_json(rows[0].orders_z)[seat]
        if used != json.loads(live[0].orders_json or "null"):
            problems.append("the turn did not resolve with the live submission")
    engine.dispose()
    return problems


def run(folder: Path, races: int) -> Figures:
    figures = Figures()
    figures.set("rivals.wrong", 0, goal_zero=True)
    figures.set("rivals.cases", 0)
    figures.set("rivals.races", 0)
    for name, expected, got in single_cases(folder):
        figures.add("rivals.cases")
        if got != expected:
            figures.add("rivals.wrong")
            figures.find(f"rivals: {name}: expected {expected}, got {got}")
    for n in range(races):
        _timed(figures, lambda n=n: race(folder, n))
    return figures


def _timed(figures: Figures, one: Callable[[], list[str]]) -> None:
    started = time.monotonic()
    problems = one()
    figures.add("rivals.races")
    figures.values["rivals.race_max_seconds"] = max(
        float(figures.values.get("rivals.race_max_seconds", 0)), round(time.monotonic() - started, 1)
    )
    if problems:
        figures.add("rivals.wrong")
        figures.find(f"rivals race: {'; '.join(problems)}")
