"""The bot: legal in every position the tests build, and sensible in the plain cases."""

from __future__ import annotations

from games.coral_divers import GAME

from .conftest import FirstChance, RandomChance, line, orders, position

BLOCK: list[str | None] = ["brain", "brain", None, None, "brain", "brain"] + [None] * 10


def bot_orders(state: object) -> list[object]:
    data = GAME.bot(state, state.seat, RandomChance(1))  # type: ignore[attr-defined]
    GAME.check(state, state.seat, orders(*data))  # type: ignore[attr-defined]
    return data


def test_the_bot_extends_its_reef_instead_of_discarding() -> None:
    state = position(
        nursery=["brain"] + [None] * 15, reefs=[("red", {"f4": "brain"}), ("blue", {"g5": "fan"})], coins=5
    )
    data = bot_orders(state)
    placed = [s["place"]["at"] for s in data if "place" in s]  # type: ignore[index,operator]
    assert not any("discard" in s for s in data)  # type: ignore[operator]
    assert placed and placed[0] in {"f3", "e4", "g4"}


def test_the_bot_surfaces_for_nothing_when_it_must() -> None:
    assert bot_orders(position(nursery=BLOCK, coins=1)) == [{"surface": []}]


def test_the_bot_surfaces_a_reef_when_it_cannot_pay_for_a_line() -> None:
    state = position(nursery=BLOCK, coins=1, reefs=[("red", {"a1": "tube"})])
    assert bot_orders(state) == [{"surface": ["a1"]}]


def test_the_bot_uses_a_pearl_to_afford_a_line() -> None:
    state = position(nursery=BLOCK, coins=1, shells={"red": ["pearl"]})
    data = bot_orders(state)
    assert data[0] == {"shell": "pearl"} and "plant" in data[1]  # type: ignore[operator]


def test_the_template_for_a_seat_that_cannot_plant_offers_only_surfacing() -> None:
    state = position(nursery=BLOCK, coins=1, reefs=[("red", {"a1": "tube"})])
    text = GAME.template(state, "red")
    assert "plant:" not in text and "# - surface: [a1]" in text


def test_the_bot_does_not_fill_a_ring_to_hand_the_leader_the_high_value() -> None:
    """Behind at station f5 (blue 4 tiles, red 2), one ring space left (g6): a fan tile there completes
    the ring and blue scores 7 to red's 3 at once; on h6 it grows the same reef outside the ring and the
    race stays open. The bot once valued every ring space alike and filled it (the second seat kept
    handing the first the high value: the starting player finished first in 66 of 100 games)."""
    state = position(
        coins=2,
        stations={"f5": (7, 3, True), "f8": (4, 2, True)},
        nursery=line(["fan"]),
        reefs=[
            ("blue", {"e4": "brain", "f4": "brain", "g4": "brain", "e5": "brain"}),
            ("red", {"g5": "fan", "h5": "fan"}),
            (None, {"e6": "tube", "f6": "tube"}),
        ],
    )
    steps = GAME.bot(state, "red", FirstChance())
    assert {"plant": {"line": "row 1"}} in steps
    placed = [s["place"]["at"] for s in steps if "place" in s]
    assert placed and placed[0] != "g6"
    GAME.check(state, "red", orders(*steps))
