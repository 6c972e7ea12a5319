"""The template's hints tell the truth (issue 34): whatever a hint says a seat cannot do, the engine
refuses every way of doing it, and a hint gives no reason the engine does not bear out.

The property runs over the states of bot games and over the same states with the seat to move stripped
of its reefs (as after surfacing them all), at several purses: the positions where a player with no
reef reads a reason to surface. Each claim is checked by playing orders through the game's own
``check``, not through the helpers the template uses."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from games.coral_divers import GAME
from games.coral_divers.data import SEA_MAP
from games.coral_divers.state import State, line_slots
from pbem.core.game import RulesError

from .conftest import orders, position
from .test_properties import states

NO_LINE = "you can afford no line"
NO_FIT = "no tile of a line you can afford fits anywhere on the sea floor"


def hint(state: State) -> str:
    """The template's words, its comment wrapping undone."""
    text = GAME.template(state, state.seat)
    return " ".join(line.strip(" #") for line in text.splitlines())


def accepted(state: State, steps: list[Any]) -> bool:
    try:
        GAME.check(state, state.seat, orders(*steps))
    except RulesError:
        return False
    return True


def _before_the_line(state: State) -> list[Any]:
    """Every shell that could help a Plant, played first: pearls (coins), a discount, free starts."""
    shells = state.players[state.seat].shells
    return [{"shell": kind} for kind in shells if kind in ("pearl", "discount", "free-start")]


def plants(state: State) -> Iterator[tuple[list[Any], int, list[Any]]]:
    """Each Plant's opening (shells, the line, perhaps an extra tile), the number of tiles it holds
    then, and the extra-tile step if any."""
    held = state.players[state.seat].shells
    for line in state.choosable_lines():
        taken = sum(1 for s in line_slots(line) if state.nursery[s] is not None)
        opening = [*_before_the_line(state), {"plant": {"line": line}}]
        yield opening, taken, []
        if "extra-tile" in held:
            for slot, tile in enumerate(state.nursery):
                if tile is not None and slot not in line_slots(line):
                    extra = {"shell": {"kind": "extra-tile", "row": slot // 4 + 1, "column": slot % 4 + 1}}
                    yield opening, taken + 1, [extra]


def discards(n: int, but: int | None = None) -> list[Any]:
    return [{"discard": {"tile": t}} for t in range(1, n + 1) if t != but]


def plant_accepted(state: State, line: str) -> bool:
    taken = sum(1 for s in line_slots(line) if state.nursery[s] is not None)
    return bool(taken) and accepted(
        state, [*_before_the_line(state), {"plant": {"line": line}}, *discards(taken)]
    )


def some_plant_is_accepted(state: State) -> bool:
    return any(
        taken and accepted(state, [*opening, *extra, *discards(taken)])
        for opening, taken, extra in plants(state)
    )


def some_tile_is_placed(state: State) -> bool:
    for opening, taken, extra in plants(state):
        for tile in range(1, taken + 1):
            if tile > 1 and not extra and _same_as_before(state, opening, tile):
                continue  # a tile of a kind already tried in this line goes where that one went
            for at in SEA_MAP.terrain:
                place = {"place": {"tile": tile, "at": at}}
                if accepted(state, [*opening, *extra, place, *discards(taken, but=tile)]):
                    return True
    return False


def _same_as_before(state: State, opening: list[Any], tile: int) -> bool:
    slots = [s for s in line_slots(opening[-1]["plant"]["line"]) if state.nursery[s] is not None]
    kinds = [state.nursery[s] for s in slots]
    return kinds[tile - 1] in kinds[: tile - 1]


def without_reefs(state: State, coins: int) -> State:
    """``state`` with the seat to move's reefs closed (neutral, divers home) and ``coins`` in hand."""
    out = state.copy()
    seat = out.seat
    for rid, reef in list(out.reefs.items()):
        if reef.owner == seat:
            out.reefs[rid] = replace(reef, owner=None, diver=None)
    out.players[seat] = replace(out.players[seat], coins=coins)
    return out


def positions() -> Iterator[State]:
    for n, seed in ((2, 3401), (3, 3402), (4, 3403)):
        for i, (state, _orders) in enumerate(states(n, seed)):
            if state.over or i % 4:
                continue
            yield state
            yield without_reefs(state, coins=(0, 1, 2, 5)[i // 4 % 4])


def offers_exactly_the_lines_the_engine_takes(state: State) -> None:
    """ "lines you can afford: ..." says every other line cannot be taken; no PLANT section, that none can."""
    text = GAME.template(state, state.seat)
    takeable = [line for line in state.choosable_lines() if plant_accepted(state, line)]
    if not takeable:
        assert "PLANT" not in text
        return
    # each line in the reader's words with its cost counted in coins, as the order template writes it
    tiles = {line: sum(1 for s in line_slots(line) if state.nursery[s]) for line in takeable}
    costs = ", ".join(f"{line}: {n} coin{'' if n == 1 else 's'}" for line, n in tiles.items())
    assert f"lines you can afford and their costs: {costs}" in hint(state)


def test_every_reason_a_hint_gives_is_the_engine_s() -> None:
    said = {NO_LINE: 0, NO_FIT: 0, "none": 0}
    for state in positions():
        offers_exactly_the_lines_the_engine_takes(state)
        if state.reefs_of(state.seat):
            continue
        words = hint(state)
        assert "you may" in words and "surface without closing anything" in words
        # each claim holds exactly when the engine bears it out: no claim is false, none is left out
        no_plant = not some_plant_is_accepted(state)
        assert (NO_LINE in words) == no_plant, words
        if no_plant:
            said[NO_LINE] += 1
            continue
        no_fit = not some_tile_is_placed(state)
        assert (NO_FIT in words) == no_fit, words
        said[NO_FIT if no_fit else "none"] += 1
    # the positions reach every branch, so the property is not met by never making a claim
    assert all(said.values()), said


@pytest.mark.parametrize("coins", [5, 1])
def test_a_player_with_no_reef_who_may_plant_is_not_told_they_can_place_nothing(coins: int) -> None:
    # the game: red has no reef, row 1 is within reach and e5 (a start space of f5) is free
    nursery: list[str | None] = ["brain", None, None, None, *(["tube"] * 12)]
    state = position(nursery=nursery, coins=coins)
    words = hint(state)
    assert "place no tile" not in words and NO_FIT not in words and NO_LINE not in words
    assert "You have no reef: you may surface without closing anything" in words
    assert "row 2 of the nursery then goes out of the game" in words  # the fullest row, the first of them
    assert accepted(state, [{"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e5"}}])


def test_a_player_whose_tiles_fit_nowhere_is_told_so_and_may_still_plant() -> None:
    # the one active station's start spaces all hold blue's tube reef: red's brain has nowhere to go
    blue = ("blue", {"f4": "tube", "e5": "tube", "e4": "tube", "e6": "tube", "f6": "tube", "g6": "tube"})
    state = position(
        nursery=["brain", *([None] * 3), *(["tube"] * 12)],
        stations={"f5": (6, 3, True)},
        reefs=[blue, ("blue", {"g5": "staghorn"})],
    )
    words = hint(state)
    assert f"You have no reef and {NO_FIT}: you may surface without closing anything" in words
    assert not some_tile_is_placed(state)
    # a Plant is still allowed (it discards): the Surface is offered, not written in
    assert "  # - surface: []" in GAME.template(state, "red")
