"""Catching up (issue 32): a seat that missed turns (away, or a stand-in played for it) gets in its
next report what happened since its own last orders, not only the last turn.

For each seat the stand-in played for, in this turn or in one since the seat's own last orders, the
turns between those orders and this one are found, with their events; the report shows the events the
seat may see of each (:func:`pbem.render.reports.context`, ``caught_up``). At most
:data:`TURNS_BACK` turns back: a seat away for months gets the last of them, and its report stays a
report. A seat abandoned for good gets none (nobody reads it until a new player takes it, who starts
from the report in the welcome).

Read from the turn driver's snapshot (no lock); a game where no seat has missed anything costs nothing
more than looking at the seat rows it has read already.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, false, select

from pbem.core.codec import unpack_json
from pbem.core.game import Event
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
    candidates = [
        seat.name
        for seat in seats
        if not seat.abandoned and (seat.name in by_bot or seat.misses or seat.away_days_used)
    ]
    if not candidates or number <= 1:
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
        (n, set(unpack_json(orders)), set(json.loads(bots)), events) for n, orders, bots, events in turns
    ]
    found: dict[str, CaughtUp] = {}
    for seat in candidates:
        own = [n for n, ordered, bots, _events in history if seat in ordered and seat not in bots]
        since = own[-1] if own else number - TURNS_BACK - 1
        missed = seat in by_bot or any(n > since and seat in bots for n, _o, bots, _e in history)
        if not missed:
            continue
        back = [
            (n, [load_event(e) for e in unpack_json(events)]) for n, _o, _b, events in history if n > since
        ]
        if back:
            found[seat] = back
    return found
