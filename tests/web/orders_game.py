"""A test double of :class:`pbem.core.game.StepGuide`: Pearl Dive (the host's test game) that also
leads a seat step by step, and a game of it for the orders form, the builder and the API.

It keeps Pearl Dive's name (so its report templates serve it) and stands in for it in the registry only
inside :func:`stepped_game`. Its ``next_steps`` follows the protocol honestly:
every choice extends the chosen steps to the start of legal orders, ``complete`` is true exactly when
Pearl Dive's ``check`` accepts them, and an illegal chosen step raises the error ``check`` would.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import registry
from pbem.core.game import NextSteps, StepChoice
from pbem.core.i18n import T_
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import SeatRow
from tests.host.pearl_dive import GAME, BidOrders, DiveOrders, PearlDive, State

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SEATS = [("red", "red@example.org"), ("blue", "blue@example.org"), ("green", "green@example.org")]


class SteppedPearlDive(PearlDive):
    def next_steps(self, state: State, seat: str, chosen: Sequence[Any]) -> NextSteps:
        bidding = state.phase == "bid"
        model = BidOrders if bidding else DiveOrders
        if chosen:
            orders = model.model_validate(list(chosen))  # one step at most: a second is refused by shape
            self.check(state, seat, orders)
            return NextSteps(choices=[], complete=True)
        if bidding:
            choices = [
                StepChoice({"bid": pearl}, "bid", T_("bid your pearl worth {value}", value=pearl))
                for pearl in sorted(set(state.hands[seat]))
            ]
        else:
            choices = [
                StepChoice({"dive": "deep"}, "dive", T_("dive deep: 3 points on a coin toss")),
                StepChoice({"dive": "shallow"}, "dive", T_("dive shallow: 1 point")),
            ]
        return NextSteps(choices=choices, complete=False)


STEPPED = SteppedPearlDive()


@dataclass
class Stepped:
    """A game of the stepped Pearl Dive in a fresh database, with its passwords."""

    engine: Engine
    db_url: str
    game_id: str
    passwords: dict[str, str]


def speaks(engine: Engine, seat: str, language: str) -> None:
    """Give ``seat`` (of any game in ``engine``'s database) its own language."""
    with Session(engine) as session:
        row = session.exec(select(SeatRow).where(SeatRow.name == seat)).one()
        row.language = language
        session.add(row)
        session.commit()


@contextmanager
def stepped_game(tmp_path: Path) -> Iterator[Stepped]:
    """A game of the stepped Pearl Dive; the plain Pearl Dive is back in the registry afterwards."""
    registry.register(STEPPED)
    try:
        db_url = f"sqlite:///{tmp_path / 'pbem.sqlite'}"
        engine = connect(db_url)
        issued = create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0)
        yield Stepped(engine, db_url, "pd-1", issued)
    finally:
        registry.register(GAME)


__all__ = ["STEPPED", "T0", "Stepped", "speaks", "stepped_game"]
