"""Writes done under a tick's claim on a game are fenced by the claim's generation.

A tick's lease on a game (:mod:`pbem.host.claims`) is a time; a tick that outlives it (a slow process,
a host whose clock is behind, a process stopped and resumed) may still be working on the game while
another tick took it over. Times alone cannot tell them apart, so every claim also raises
``GameRow.claim_generation`` by one, and the tick works inside :func:`holding` with the generation it
claimed. Every write made under a claim (a resolved turn, queued mail of that game) calls
:func:`check` in its own transaction: the game's generation must still be the one claimed, or
:class:`ClaimLost` is raised and the transaction is rolled back, so the tick that lost the game writes
nothing of it.

The check is ``UPDATE game SET claim_generation = claim_generation WHERE id = … AND
claim_generation = …``: a compare-and-set that takes the game row's write lock, so a claim cannot slip
in between the check and the commit (on PostgreSQL the row lock; on SQLite the database's write lock).

Outside :func:`holding` (``pbem process``, ``pbem submit``, tests) nothing is checked: there is no claim.

An inbound message's claim (``InboundRow.attempts``, :mod:`pbem.mail.inbound`) is fenced the same way:
the submission a message makes checks it in its own transaction (:func:`handling`, :func:`check_message`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy import Connection, bindparam, update
from sqlmodel import Session

from pbem.storage.db import connection_of
from pbem.storage.models import GameRow, InboundRow

_held: ContextVar[tuple[str, int] | None] = ContextVar("pbem_claim", default=None)


class ClaimLost(Exception):
    """This tick's claim on the game was taken over by another tick: it must write nothing of it."""

    def __init__(self, game_id: str, generation: int) -> None:
        super().__init__(f"game {game_id}: claim {generation} was taken over by another tick")
        self.game_id, self.generation = game_id, generation


@contextmanager
def holding(game_id: str, generation: int) -> Iterator[None]:
    """Work on ``game_id`` under the claim of ``generation``: writes of that game are checked."""
    token = _held.set((game_id, generation))
    try:
        yield
    finally:
        _held.reset(token)


def check(session: Session | Connection, game_id: str | None) -> None:
    """Raise :class:`ClaimLost` unless this work holds no claim on ``game_id`` or still holds the one
    it claimed; call it in the transaction that writes, before its commit (``session``: that
    transaction's Session, or its Core connection, as the mail pass writes on one)."""
    held = _held.get()
    if held is None or game_id is None or held[0] != game_id:
        return
    _, generation = held
    result = connection_of(session).execute(_CHECK, {"of_game": game_id, "generation": generation})
    if result.rowcount != 1:
        raise ClaimLost(game_id, generation)


# built once, run with each claim's values (building it cost SQLAlchemy more than running it), on the
# table through the session's connection: the ORM's bulk update layer around it cost more than the
# statement, and there is nothing of the session's to bring up to date (the column is set to itself)
_TABLE = GameRow.__table__  # type: ignore[attr-defined]
_CHECK = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("of_game"), _TABLE.c.claim_generation == bindparam("generation"))
    .values(claim_generation=_TABLE.c.claim_generation)
)


class MessageTakenOver(Exception):
    """Another run took over the claim on an inbound message: this run must write nothing of it."""

    def __init__(self, key: str, generation: int) -> None:
        super().__init__(f"mail {key}: claim {generation} was taken over by another run")
        self.key, self.generation = key, generation


@contextmanager
def handling(key: str, generation: int) -> Iterator[None]:
    """Handle inbound message ``key`` under the claim of ``generation``: the submission it makes is
    checked (:func:`check_message`)."""
    token = _message.set((key, generation))
    try:
        yield
    finally:
        _message.reset(token)


def check_message(session: Session | Connection) -> None:
    """In the transaction that writes what an inbound message brought (its submission), before its
    commit: raise :class:`MessageTakenOver` unless the message's claim is still the one this work
    handles it under (``InboundRow.attempts``), so the transaction rolls back. A check made in a
    transaction of its own, before the write, leaves a gap in which a run with a clock ahead, or one that
    finds this run's claim stale, takes the message over and submits it too: one mail, two submissions.

    Like :func:`check`, a compare-and-set that takes the message row's write lock: a takeover waits for
    this commit (and then finds the submission: :func:`pbem.mail.inbound._submitted`) or wins first.
    Outside :func:`handling` nothing is checked."""
    held = _message.get()
    if held is None:
        return
    key, generation = held
    found = connection_of(session).execute(_CHECK_MESSAGE, {"of_key": key, "generation": generation})
    if found.rowcount != 1:
        raise MessageTakenOver(key, generation)


_message: ContextVar[tuple[str, int] | None] = ContextVar("pbem_message_claim", default=None)
_INBOUND = InboundRow.__table__  # type: ignore[attr-defined]
_CHECK_MESSAGE = (
    update(_INBOUND)
    .where(
        _INBOUND.c.key == bindparam("of_key"),
        _INBOUND.c.outcome == "processing",
        _INBOUND.c.attempts == bindparam("generation"),
    )
    .values(attempts=_INBOUND.c.attempts)
)
