"""Catching up (issue 32): a seat that missed turns (away, or a stand-in played for it) gets in its
next report what happened since its own last orders, not only the last turn.

For each seat the stand-in played for, in this turn or in one since the seat's own last orders, the
turns between those orders and this one are found, with their events; the report shows the events the
seat may see of each (:func:`pbem.render.reports.context`, ``caught_up``). At most
:data:`TURNS_BACK` turns back: a seat away for months gets the last of them, and its report stays a
report. A seat the stand-in plays for good (a level of its own) gets none: nobody reads it.

Read by the turn driver from its snapshot (no lock), and by a report rendered anew in another language
(:func:`pbem.render.reports.report`), so the report a player asks for again is the one that was mailed.
A game where no seat has missed anything costs nothing more than looking at the seat rows already read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, false, select

from pbem.core.codec import unpack_json
from pbem.core.game import Event
from pbem.core.search import standin_of
from pbem.storage.history import load_event
from pbem.storage.models import TurnRow

#: how many turns back a report catches up at most
TURNS_BACK = 12

#: what a seat is caught up on: (turn, its events) of each turn since its own last orders, oldest first
CaughtUp = list[tuple[int, list[Event]]]

_T = TurnRow.__table__  # type: ignore[attr-defined]


def catching_up(
    conn: Connection,
    game_id: str,
    epoch: int,
    number: int,
    seats: Sequence[Any],
    by_bot: Sequence[str],
) -> dict[str, CaughtUp]:
    """For turn ``number`` about to be written (the stand-in playing for the seats ``by_bot``):
    each seat's earlier turns to catch up on. ``seats``: the seat rows the driver read."""
    players = [seat for seat in seats if not seat.bot_level]
    # only a seat the stand-in played for has anything to catch up on: one that missed orders, was away,
    # or misses them now (a seat the stand-in plays for good reads nothing); else no query is made
    if number <= 1 or not any(seat.misses or seat.away_days_used or seat.name in by_bot for seat in players):
        return {}
    turns = conn.execute(
        select(_T.c.number, _T.c.orders_z, _T.c.by_bot_json, _T.c.events_z)
        .where(
            _T.c.game_id == game_id,
            _T.c.epoch.in_(range(epoch + 1)),
            _T.c.number.between(max(1, number - TURNS_BACK), number - 1),
            _T.c.undone == false(),
        )
        .order_by(_T.c.number)
    ).all()
    history = [
        Turn(n, frozenset(unpack_json(orders)), bot_seats(json.loads(bots)), events)
        for n, orders, bots, events in turns
    ]
    found = caught_up(history, number, [seat.name for seat in players], by_bot)
    return {
        seat: [(n, [load_event(e) for e in unpack_json(z)]) for n, z in back] for seat, back in found.items()
    }


@dataclass(frozen=True)
class Turn:
    """What catching up reads of an earlier turn: who sent orders, whom the stand-in played for, and its
    events (as the caller keeps them: packed in the database, live in an archive being imported)."""

    number: int
    ordered: frozenset[str]
    by_bot: frozenset[str]
    events: Any


def bot_seats(entries: Sequence[str]) -> frozenset[str]:
    """The seats of a turn's ``by_bot`` record, whose entries are ``seat=level`` (or a bare ``seat`` in
    turns recorded before the stand-in had levels)."""
    return frozenset(standin_of(entry)[0] for entry in entries)


def caught_up(
    history: Sequence[Turn], number: int, players: Sequence[str], by_bot: Sequence[str]
) -> dict[str, list[tuple[int, Any]]]:
    """The rule, on the turns of ``history`` (oldest first) that fall in the :data:`TURNS_BACK` before
    ``number``: each of ``players`` the stand-in played for, now (``by_bot``) or since its own last
    orders, gets ``[(turn, events)]`` of every turn since those orders. The same for the live turn, an
    import and a replay, so an imported or replayed game's reports are the ones it had (the seats the
    stand-in plays for good, with a level of their own, read nothing and are left out by the caller)."""
    if number <= 1:
        return {}
    history = [t for t in history if max(1, number - TURNS_BACK) <= t.number < number]
    now = bot_seats(by_bot)
    found: dict[str, list[tuple[int, Any]]] = {}
    for seat in players:
        own = [t.number for t in history if seat in t.ordered and seat not in t.by_bot]
        since = own[-1] if own else number - TURNS_BACK - 1
        if seat not in now and not any(t.number > since and seat in t.by_bot for t in history):
            continue
        back = [(t.number, t.events) for t in history if t.number > since]
        if back:
            found[seat] = back
    return found
