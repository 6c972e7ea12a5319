"""Players against each other: another player's name, wrong or missing passwords, past and future
turns, a seat that owes nothing, the end of the game, later orders replacing earlier ones, and two
submissions racing a turn driver."""

from __future__ import annotations

from pathlib import Path

from proof import rivals


def test_each_attempt_on_another_seat_is_answered_as_the_rules_say(tmp_path: Path) -> None:
    answers = rivals.single_cases(tmp_path)
    assert len(answers) >= 15
    wrong = [(case, expected, got) for case, expected, got in answers if expected != got]
    assert wrong == []


def test_two_submissions_racing_a_turn_leave_one_live_and_one_resolution(tmp_path: Path) -> None:
    for n in range(2):  # both orders of starting the three processes
        assert rivals.race(tmp_path, n) == []
