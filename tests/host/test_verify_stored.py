"""``pbem replay --verify`` checks every stored blob the host reads, not only the turns' record: a
corrupted game state (the next turn is resolved from it), turn state (a rollback goes back to it),
stored report or game turn number is reported by name, and the verify fails."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, select

from host.conftest import Ran
from pbem.cli.demo import play_bots
from pbem.core.codec import pack, pack_json, unpack_json
from pbem.storage.models import GameRow, ReportRow, TurnRow


@pytest.fixture
def played(engine: Engine) -> Engine:
    play_bots(engine, "pearl-dive", "g", 3, 7, turns=3)
    return engine


def test_an_untouched_game_verifies(played: Engine, pbem: Callable[..., Ran]) -> None:
    ran = pbem("replay", "g", "--verify")
    assert ran.code == 0, ran.err
    assert ran.out.strip() == "g: 4 turns replayed; every state hash matches"


def _state_with_a_change(packed: bytes) -> bytes:
    """The same state with one value changed: still a state, but not the one its hash is of."""
    data = unpack_json(packed)
    data["__corrupted__"] = 1
    return pack_json(data)


def _fails_naming(pbem: Callable[..., Ran], words: str) -> None:
    ran = pbem("replay", "g", "--verify")
    assert ran.code == 1
    assert words in ran.err, ran.err
    assert "every state hash matches" not in ran.out
    assert "Traceback" not in ran.err


def test_a_corrupted_game_state_is_named(played: Engine, pbem: Callable[..., Ran]) -> None:
    with Session(played) as session:
        row = session.get(GameRow, "g")
        assert row is not None
        session.execute(update(GameRow).values(state_z=_state_with_a_change(row.state_z)))
        session.commit()
    _fails_naming(pbem, "game.state_z (the state the next turn is resolved from) does not match its hash")


def test_a_corrupted_turn_state_is_named(played: Engine, pbem: Callable[..., Ran]) -> None:
    with Session(played) as session:
        turn = session.exec(select(TurnRow).where(TurnRow.number == 2)).one()
        session.execute(
            update(TurnRow).where(TurnRow.id == turn.id).values(state_z=_state_with_a_change(turn.state_z))
        )
        session.commit()
    _fails_naming(pbem, "turn 2 (epoch 0): its stored state (turn.state_z, what a rollback goes back to)")


def test_an_unreadable_turn_state_is_named(played: Engine, pbem: Callable[..., Ran]) -> None:
    with Session(played) as session:
        session.execute(update(TurnRow).where(TurnRow.number == 1).values(state_z=b"not zlib"))
        session.commit()
    _fails_naming(pbem, "turn 1 (epoch 0): its stored state")


def test_a_corrupted_report_is_named(played: Engine, pbem: Callable[..., Ran]) -> None:
    with Session(played) as session:
        session.execute(
            update(ReportRow)
            .where(ReportRow.turn == 2, ReportRow.seat == "alice")
            .values(html_z=pack("<p>bob holds 3 pearls</p>"))
        )
        session.commit()
    _fails_naming(pbem, "the stored report of turn 2 (epoch 0) for alice does not match its hash")


def test_a_wrong_game_turn_is_named(played: Engine, pbem: Callable[..., Ran]) -> None:
    with Session(played) as session:
        session.execute(update(GameRow).values(turn=2))
        session.commit()
    _fails_naming(pbem, "game.turn says 2, but the last recorded turn is 3")
