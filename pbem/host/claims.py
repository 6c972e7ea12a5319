"""Who processes which game: a lease on the game row, taken so that two ticks never take the same game.

A tick walks the active games in id order and claims them a few at a time: it writes its name and a
lease end into ``GameRow.claimed_by``/``claimed_until``, then works on each game with no lock held (the
turn driver takes its own), and gives the lease back when done, leaving its moment in ``claimed_until``
so that the other ticks of that moment do not visit the game again. A game whose lease is held by another
tick is skipped: that tick does it. A lease that ran out (its tick died) may be taken again; the turn
table's unique ``(game, epoch, number)`` is a backstop if a slow tick outlives its lease; the fence is
the claim's generation (``GameRow.claim_generation``, raised at every claim): whatever the tick writes
under its claim checks it in the same transaction (:mod:`pbem.storage.fencing`), so a tick that outlived its
lease writes nothing once another tick took the game over. A lease
that ends further ahead than a lease can (its tick's clock was ahead) is free too: one tick with a
wrong clock must not hold every game until the real time catches up. Between hosts, the tick takes its
moment from PostgreSQL's clock (:mod:`pbem.host.timebase`), so leases are measured on one clock.

How the claim itself is made race-free:

- PostgreSQL: ``SELECT … FOR UPDATE SKIP LOCKED`` picks rows no other claimer is looking at, and the
  lease is written in the same transaction.
- SQLite: the claim runs in a ``BEGIN IMMEDIATE`` transaction (the database's write lock from its first
  statement), so the read of free leases and the write of ours cannot interleave with another claimer.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, or_, select, update

from pbem.storage.models import GameRow
from pbem.storage.sqlite import immediate_engine, is_sqlite

GAME = GameRow.__table__  # type: ignore[attr-defined]
DEFAULT_LEASE_SECONDS = 600
#: how far two clocks may disagree before a lease from the one ahead is taken for a clock error
FUTURE_SLACK = timedelta(minutes=1)


#: the longest name a tick goes by: ``claimed_by`` and ``cron_tick.host`` hold 128 characters, which
#: PostgreSQL enforces (SQLite does not), and a helper process adds ``/N`` to its tick's name
MAX_HOST = 120


def host_id() -> str:
    """This tick's name in ``claimed_by``: ``$PBEM_HOST_ID``, else ``hostname:pid``."""
    return fitted(os.environ.get("PBEM_HOST_ID") or f"{socket.gethostname()}:{os.getpid()}")


def fitted(name: str) -> str:
    """``name`` as a tick's name the database holds: a longer one is cut, and told apart from other
    names cut alike by a digest of the whole."""
    if len(name) <= MAX_HOST:
        return name
    return f"{name[: MAX_HOST - 17]}~{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _free(now: datetime, me: str, lease_seconds: int = DEFAULT_LEASE_SECONDS) -> Any:
    # a lease ending further ahead than any lease is long was written by a clock that was ahead: it
    # must not hold the game until the real time catches up with that clock
    beyond = now + timedelta(seconds=lease_seconds) + FUTURE_SLACK
    return or_(
        GAME.c.claimed_until.is_(None),
        GAME.c.claimed_until < now,
        GAME.c.claimed_until > beyond,
        GAME.c.claimed_by == me,
    )


def claim(engine: Engine, me: str, now: datetime, **kwargs: Any) -> list[str]:
    """The ids :func:`claim_generations` claims, in order."""
    return list(claim_generations(engine, me, now, **kwargs))


def claim_generations(
    engine: Engine,
    me: str,
    now: datetime,
    *,
    after: str = "",
    limit: int = 10,
    lease_seconds: int = DEFAULT_LEASE_SECONDS,
    only: Sequence[str] | None = None,
) -> dict[str, int]:
    """Claim up to ``limit`` active games with ids after ``after`` whose lease is free: each id (in
    order) with the generation of this claim, which every write under it checks (:mod:`pbem.storage.fencing`).
    ``only`` restricts the walk to those games."""
    until = now + timedelta(seconds=lease_seconds)
    query = (
        select(GAME.c.id)
        .where(GAME.c.status == "active", GAME.c.id > after, _free(now, me, lease_seconds))
        .order_by(GAME.c.id)
        .limit(limit)
    )
    if only is not None:
        query = query.where(GAME.c.id.in_(list(only)))
    if not is_sqlite(engine):
        query = query.with_for_update(skip_locked=True)
    with immediate_engine(engine).begin() as conn:
        ids = list(conn.execute(query).scalars())
        if not ids:
            return {}
        conn.execute(
            update(GAME)
            .where(GAME.c.id.in_(ids))
            .values(claimed_by=me, claimed_until=until, claim_generation=GAME.c.claim_generation + 1)
        )
        generations = dict(
            conn.execute(select(GAME.c.id, GAME.c.claim_generation).where(GAME.c.id.in_(ids))).all()
        )
    return {game_id: generations[game_id] for game_id in ids}


def release(engine: Engine, me: str, game_ids: str | Sequence[str], now: datetime) -> None:
    """Give the leases back (only those still ours). ``claimed_until`` keeps ``now``, the moment of the
    tick that visited the game: a tick of the same moment or an earlier one, still walking, passes it
    by instead of doing the same game again; any later tick takes it."""
    with engine.begin() as conn:
        conn.execute(
            update(GAME)
            .where(GAME.c.id.in_([game_ids] if isinstance(game_ids, str) else list(game_ids)))
            .where(GAME.c.claimed_by == me)
            .values(claimed_by=None, claimed_until=now)
        )
