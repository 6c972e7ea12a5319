"""The host's chance: a recorder seeded from (seed, epoch, turn), and a script that answers from a record."""

from __future__ import annotations

import pytest

from pbem.core.chance import Recorder, Script, rederive
from pbem.core.game import ScriptExhausted, shuffled


def draws(seed: int, epoch: int, turn: int) -> list[int]:
    recorder = Recorder.for_turn(seed, epoch, turn)
    return [recorder.pick("bag", 100) for _ in range(20)]


def test_same_seed_epoch_and_turn_give_the_same_draws() -> None:
    assert draws(7, 0, 3) == draws(7, 0, 3)


def test_each_turn_epoch_and_seed_has_its_own_stream() -> None:
    assert (
        len({tuple(draws(7, 0, 3)), tuple(draws(7, 0, 4)), tuple(draws(7, 1, 3)), tuple(draws(8, 0, 3))}) == 4
    )


def test_recorder_records_label_size_and_outcome() -> None:
    recorder = Recorder.for_turn(1, 0, 1)
    outcome = recorder.pick("coin toss", 2)
    assert recorder.record == [["coin toss", 2, outcome]]


def test_script_replays_a_record_exactly() -> None:
    recorder = Recorder.for_turn(5, 0, 2)
    dealt = shuffled(recorder, "deck", list(range(10)))
    script = Script(recorder.record)
    assert shuffled(script, "deck", list(range(10))) == dealt
    assert script.unused() == 0
    assert rederive(recorder.record, 5, 0, 2)
    assert not rederive(recorder.record, 6, 0, 2)


def test_script_refuses_a_different_question() -> None:
    script = Script([["bag", 10, 3]], where="turn 4")
    with pytest.raises(ScriptExhausted) as caught:
        script.pick("coin toss", 2)
    assert caught.value.code == "chance.mismatch"
    assert "turn 4" in str(caught.value)


def test_script_refuses_a_draw_beyond_the_record() -> None:
    script = Script([["bag", 10, 3]])
    assert script.pick("bag", 10) == 3
    with pytest.raises(ScriptExhausted) as caught:
        script.pick("bag", 9)
    assert caught.value.code == "chance.exhausted"


def test_script_refuses_an_impossible_outcome() -> None:
    with pytest.raises(ScriptExhausted) as caught:
        Script([["bag", 3, 5]]).pick("bag", 3)
    assert caught.value.code == "chance.invalid"
