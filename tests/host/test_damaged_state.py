"""Issue 33, finding 13: the game's cached state is checked against its hash before a turn is resolved
from it, and a turn's stored state before a rollback goes back to it. A damaged cache is replaced by the
history it caches (the last turn's stored state, itself checked); with no intact copy ``pbem process``
refuses in words with exit 1 and records no turn, and so does a rollback onto a damaged turn."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import Engine, func, update
from sqlmodel import Session, select

from host.conftest import Ran
from pbem.cli.demo import play_bots
from pbem.core.codec import pack_json, unpack_json
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.orders import submit, template
from pbem.play.status import status
from pbem.storage.models import GameRow, TurnRow


@pytest.fixture
def ready(engine: Engine) -> Engine:
    """Three turns of Pearl Dive played, and every seat's orders for the fourth in."""
    issued = play_bots(engine, "pearl-dive", "g", 3, 7, turns=3)
    [entry] = status(engine, "g")
    for seat in entry["awaited"]:
        text = template(engine, "g", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat], 1)
        assert submit(engine, text).accepted
    return engine


def _one_score_raised(packed: bytes) -> bytes:
    """The same state with one integer changed (a seat's score): a state still, not its hash's."""
    data = unpack_json(packed)
    seat = sorted(data["scores"])[0]
    data["scores"][seat] += 50
    return pack_json(data)


def _damage_cache(engine: Engine) -> None:
    with Session(engine) as session:
        row = session.get(GameRow, "g")
        assert row is not None
        session.execute(update(GameRow).values(state_z=_one_score_raised(row.state_z)))
        session.commit()


def _damage_turn(engine: Engine, number: int) -> None:
    with Session(engine) as session:
        turn = session.exec(select(TurnRow).where(TurnRow.number == number)).one()
        damaged = _one_score_raised(turn.state_z)
        session.execute(update(TurnRow).where(TurnRow.id == turn.id).values(state_z=damaged))
        session.commit()


def _turns(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(TurnRow)).one()


def test_a_damaged_cache_is_replaced_by_the_history_it_caches(
    ready: Engine, pbem: Callable[..., Ran]
) -> None:
    _damage_cache(ready)
    done = pbem("process", "g")
    assert done.code == 0, done.err
    assert _turns(ready) == 5
    # the turn was resolved from the intact state: a replay of the record gives every hash, the new
    # cache included; resolved from the damaged one, its state would not replay
    verified = pbem("replay", "g", "--verify")
    assert verified.code == 0, verified.err


def test_with_no_intact_copy_process_refuses_and_records_no_turn(
    ready: Engine, pbem: Callable[..., Ran]
) -> None:
    _damage_cache(ready)
    _damage_turn(ready, 3)
    done = pbem("process", "g")
    assert done.code == 1
    assert "g: its cached state (game.state_z) does not match its hash" in done.err
    assert "pbem replay g --verify" in done.err and "Traceback" not in done.err
    assert _turns(ready) == 4


def test_a_rollback_onto_a_damaged_turn_is_refused_and_changes_nothing(
    ready: Engine, pbem: Callable[..., Ran]
) -> None:
    _damage_turn(ready, 1)
    done = pbem("rollback", "g", "--to-turn", "1")
    assert done.code == 1
    assert "the stored state of turn 1 does not match its hash" in done.err and "Traceback" not in done.err
    with Session(ready) as session:
        row = session.get(GameRow, "g")
        assert row is not None and (row.turn, row.epoch) == (3, 0)
        assert not session.exec(select(TurnRow).where(TurnRow.undone == True)).all()  # noqa: E712
