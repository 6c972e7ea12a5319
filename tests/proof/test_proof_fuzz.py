"""Hostile input, a small sample of ``make proof``'s fuzzing: no order file, however made, gets a
traceback instead of a message, and a rejected one changes nothing but its own record."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.intake.orderfile import OrderFileError, load
from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import GameRow, SubmissionRow
from proof import fuzz
from proof.hostile import alias_bomb, envelope_text


def test_hostile_files_get_a_message_and_change_nothing(tmp_path: Path) -> None:
    figures = fuzz.run(tmp_path, examples=25, atheris_seconds=0, cli_cases=6)
    assert figures.values["fuzz.cases"] > 1_000
    assert figures.values["fuzz.cli_cases"] == 6
    assert figures.values["fuzz.tracebacks"] == 0, figures.findings
    assert figures.values["fuzz.over_memory"] == 0, figures.findings


@pytest.mark.parametrize("raw", [b"game: g\nx: \x07\n", b"game: \x00g\n", "game: \x1b[31m\n"])
def test_a_control_character_in_an_order_file_is_a_message(raw: bytes | str) -> None:
    with pytest.raises(OrderFileError) as caught:
        load(raw)
    assert caught.value.step in ("yaml", "encoding")
    assert str(caught.value)


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    with pytest.raises(OrderFileError) as caught:
        load(alias_bomb().encode())
    assert caught.value.code == "yaml.alias"


def test_a_turn_too_big_for_the_database_is_rejected_with_a_message(tmp_path: Path) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")
    issued = create_game(
        engine, "coral-divers", "cd-1", [("ann", ""), ("bob", "")], seed=1, options={"starting_player": "ann"}
    )
    before = _game(engine)
    receipt = orders.submit(engine, envelope_text("cd-1", "ann", 10**40, issued["ann"], []))
    assert not receipt.accepted
    assert receipt.errors and "turn" in receipt.errors[0]
    assert _game(engine) == before
    legal = orders.submit(engine, envelope_text("cd-1", "ann", 1, issued["ann"], []))
    assert (
        not legal.accepted and "[turn." not in legal.errors[0]
    )  # the same file with a real turn gets further


def _game(engine: object) -> tuple[object, ...]:
    with Session(engine) as session:  # type: ignore[arg-type]
        row = session.get(GameRow, "cd-1")
        accepted = session.exec(select(SubmissionRow).where(SubmissionRow.status == "accepted")).all()
        assert row is not None
        return row.turn, row.state_sha256, len(accepted)
