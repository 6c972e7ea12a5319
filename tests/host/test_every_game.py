"""One real game of each shipped game, through the CLI as a game master would drive it: new, then
template --suggest, submit and process to the end, then replay --verify."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlmodel import Session, select

from host.conftest import Ran
from pbem.core.registry import games
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.storage.db import connect
from pbem.storage.models import TurnRow

SHIPPED = sorted(name for name, game in games().items() if type(game).__module__.startswith("games."))
TURN_LIMIT = 2_000
#: the storage budget: one turn's row, on average
TURN_ROW_BUDGET = 4096


def test_the_three_games_are_installed() -> None:
    assert SHIPPED == ["coral-divers", "mare-balticum", "reef-encounter"]


@pytest.mark.parametrize("game", SHIPPED)
def test_a_whole_game_through_the_cli(
    game: str, pbem: Callable[..., Ran], tmp_path: Path, db_url: str
) -> None:
    found = games()[game]
    players = [f"--player=p{i}=p{i}@example.org" for i in range(min(3, found.max_players))]
    ran = pbem("new", game, "--id", "g", *players, "--seed", "5", "--json")
    assert ran.code == 0, ran.err
    passwords = {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}
    for _ in range(TURN_LIMIT):
        entry = json.loads(pbem("status", "g", "--json").out)
        if entry["finished"]:
            break
        for seat in entry["awaited"]:
            text = pbem("template", "g", "--player", seat, "--suggest").out
            path = tmp_path / "orders.yaml"
            path.write_text(text.replace(PASSWORD_PLACEHOLDER, passwords[seat]))
            submitted = pbem("submit", str(path))
            assert submitted.code == 0, submitted.err
        assert "resolved turn" in pbem("process", "g").out
    else:
        pytest.fail(f"{game} did not end within {TURN_LIMIT} turns")
    assert sorted(entry["ranking"]) == sorted(passwords)
    report = pbem("report", "g", "--player", "p0", "--format", "html").out
    assert "<!DOCTYPE html>" in report and "p0" in report
    verified = pbem("replay", "g", "--verify")
    assert verified.code == 0 and "every state hash matches" in verified.out, verified.err
    assert average_turn_row_bytes(db_url) <= TURN_ROW_BUDGET


def average_turn_row_bytes(db_url: str) -> float:
    """What one turn costs in the database: its compressed state, orders and events, its draws."""
    with Session(connect(db_url)) as session:
        turns = session.exec(select(TurnRow)).all()
    return sum(
        len(t.state_z) + len(t.orders_z) + len(t.events_z) + len(t.chance_json) + len(t.by_bot_json)
        for t in turns
    ) / len(turns)
