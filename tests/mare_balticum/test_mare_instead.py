"""A refusal about the hold names what to write instead (issue 34), from the fish the hold has, and
what it names is accepted."""

from __future__ import annotations

import re

import yaml

from .helpers import position, rules_error, turn


def advised(message: str) -> dict:
    (step,) = re.findall(r"`(- [^`]+)`", message)
    return yaml.safe_load(step)[0]


def test_a_full_hold_is_told_to_discard_a_fish_it_holds() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"salmon": 3, "herring": 2}},
        board={"gdansk-deep": {"flatfish": 1}},
    )
    fish = {"fish": {"at": "gdansk-deep", "goods": "flatfish"}}
    err = rules_error(state, "red", [fish])
    assert err.code == "fish.hold_full" and "cod" not in err.message
    after, _ = turn(state, advised(err.message), fish)
    assert after.players["red"].hold.get("flatfish") == 1


def test_discarding_more_than_the_hold_has_is_told_what_it_may_discard() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"salmon": 1, "herring": 2}})
    err = rules_error(state, "red", [{"discard": ["salmon", "salmon", "herring", "cod"]}])
    assert err.code == "discard.not_in_hold"
    step = advised(err.message)
    assert sorted(step["discard"]) == ["herring", "salmon"]
    turn(state, step)
