"""Orders by clicking: the steps the rules allow next in a Coral Divers turn, given the steps chosen.

Rules: ``shared/rules/coral-divers.md``, "A turn". The turn so far is played by :func:`.turn.begun`, the
same code ``check`` runs, so a step offered here is one ``check`` accepts at that point, and a choice
never leads where no legal end is left: a shell before the line is offered only while a line stays
within reach, and a taken tile can always be discarded. Nothing here reads a face-down token's kind, so
the steps are a function of what the seat sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from pydantic import ValidationError

from pbem.core.game import JSON, NextSteps, RulesError, StepChoice
from pbem.core.i18n import T_, TN_, listed, separated

from . import board, scoring
from .data import ECONOMY, SEA_MAP
from .orders import TurnOrders
from .state import NURSERY, State, line_slots
from .turn import (
    Planting,
    _reef_closed,
    begun,
    describe,
    fullest_row,
    line_cost,
)
from .words import line_word, slot_word


def next_steps(state: State, seat: str, chosen: Sequence[JSON]) -> NextSteps:
    """The steps ``seat`` may add to ``chosen``; raises the :class:`RulesError` ``check`` would when
    ``chosen`` is not the start of a legal turn."""
    steps = _parsed(chosen)
    work, pl, _ = begun(state, seat, steps)
    if pl is None:
        return NextSteps(choices=[], complete=True)  # a Surface is the whole action
    choices: list[StepChoice] = []
    if pl.line is None:
        if not steps:
            choices += _surfaces(state, seat)
        choices += _lines(work, seat, pl)
        choices += [c for c in _shells(work, seat, pl) if _line_in_reach(state, seat, [*chosen, c.step])]
    else:
        choices += _placements(work, seat, pl)
        choices += _discards(pl)
        choices += _shells(work, seat, pl)
    complete = pl.line is not None and all(t is None for t in pl.taken)
    return NextSteps(choices=choices, complete=complete)


def _parsed(chosen: Sequence[JSON]) -> list[Any]:
    if not chosen:
        return []
    try:
        return list(TurnOrders.model_validate(list(chosen)).root)
    except ValidationError as error:
        where = error.errors()[0]["loc"]
        number = where[0] + 1 if where and isinstance(where[0], int) else 1
        raise RulesError(
            "turn.not_a_step",
            T_(
                "step {number} is not a step of a Coral Divers turn: write plant, place, discard, shell "
                "or surface",
                number=number,
            ),
            step=number - 1,
        ) from None


def _line_in_reach(state: State, seat: str, steps: list[JSON]) -> bool:
    """Whether a line can still be taken after ``steps`` (none of them the line): coins, pearls in hand
    or a discount cover one that holds a tile."""
    try:
        work, pl, _ = begun(state, seat, _parsed(steps))
    except RulesError:
        return False
    assert pl is not None
    reach = work.players[seat].coins + ECONOMY.pearl_coins * pl.usable["pearl"]
    free = pl.discount or pl.usable["discount"] > 0
    costs = [line_cost(work, line) for line in work.choosable_lines()]
    return any(c > 0 and (free or c <= reach) for c in costs)


# ------------------------------------------------------------------------------------------ each kind


def _surfaces(state: State, seat: str) -> list[StepChoice]:
    """Every set of the seat's reefs to close (oldest first, by the first of its spaces), or the
    Surface that closes nothing when the seat has no reef."""
    mine = sorted(state.reefs_of(seat), key=lambda r: r.id)
    divers = state.divers_on_board(seat)
    p = state.players[seat]
    if not mine:
        row = fullest_row(state)
        income = scoring.add_coins(p.coins, scoring.income(divers)) - p.coins
        label = T_(
            "surface without closing a reef: income {income}; {row} of the nursery goes out of the game "
            "(tiles: {n})",
            income=income,
            row=line_word(row),
            n=line_cost(state, row),
        )
        return [StepChoice({"surface": []}, "surface", label)]
    choices = []
    for size in range(1, len(mine) + 1):
        for closing in combinations(mine, size):
            income = scoring.add_coins(p.coins, scoring.income(divers + size)) - p.coins
            reefs = listed(
                [
                    _reef_closed(r.coral, min(r.cells), len(r.cells), scoring.reef_points(state, r))
                    for r in closing
                ]
            )
            label = T_("surface and close {reefs}: income {income}", reefs=reefs, income=income)
            choices.append(StepChoice({"surface": [min(r.cells) for r in closing]}, "surface", label))
    return choices


def _lines(work: State, seat: str, pl: Planting) -> list[StepChoice]:
    coins = work.players[seat].coins
    choices = []
    for line in work.choosable_lines():
        held = [t for t in (work.nursery[s] for s in line_slots(line)) if t is not None]
        cost = 0 if pl.discount else len(held)
        if not held or cost > coins:
            continue
        tiles = listed([describe(t) for t in held])
        if pl.discount:
            label = T_("plant {line} free (discount): {tiles}", line=line_word(line), tiles=tiles)
        else:
            label = TN_(
                "plant {line} for {n} coin: {tiles}",
                "plant {line} for {n} coins: {tiles}",
                cost,
                line=line_word(line),
                tiles=tiles,
            )
        choices.append(StepChoice({"plant": {"line": line}}, "plant", label))
    return choices


def _placements(work: State, seat: str, pl: Planting) -> list[StepChoice]:
    may_start = pl.started == 0 or work.new_reefs == "any"
    anywhere = may_start and pl.free_starts > 0
    near = {q for r in work.reefs_of(seat) for c in r.cells for q in SEA_MAP.orthogonal[c]}
    spaces = [
        at
        for at in SEA_MAP.open
        if at not in work.tiles and (anywhere or at in near or (may_start and board.is_start_space(work, at)))
    ]
    choices = []
    for n, tile in enumerate(pl.taken):
        if tile is None:
            continue
        for at in spaces:
            how = board.placement(work, seat, tile, at, pl.free_starts, may_start=may_start)
            if not isinstance(how, board.Placement):
                continue
            size = 1 + sum(len(work.reefs[r].cells) for r in (*how.own, *how.neutral))
            notes = listed(board.placement_notes(how, size))
            if at in work.seabed:
                # a clause of its own: the tile's notes are a list of nouns, taking the token is a deed
                notes = separated([notes, T_("takes the face-down seabed token")])
            label = T_(
                "place tile {number} ({tile}) on {at}: {notes}",
                number=n + 1,
                tile=describe(tile),
                at=at,
                notes=notes,
            )
            choices.append(StepChoice({"place": {"tile": n + 1, "at": at}}, "place", label))
    return choices


def _discards(pl: Planting) -> list[StepChoice]:
    return [
        StepChoice(
            {"discard": {"tile": n + 1}},
            "discard",
            T_(
                "discard tile {number} ({tile}, -{penalty})",
                number=n + 1,
                tile=describe(tile),
                penalty=ECONOMY.discard_penalty,
            ),
        )
        for n, tile in enumerate(pl.taken)
        if tile is not None
    ]


def _shells(work: State, seat: str, pl: Planting) -> list[StepChoice]:
    """The shells usable now: held since before this turn; the discount only before the line, once."""
    choices = []
    if pl.usable["pearl"] > 0:
        label = TN_("use a pearl (+{n} coin)", "use a pearl (+{n} coins)", ECONOMY.pearl_coins)
        choices.append(StepChoice({"shell": "pearl"}, "shell", label))
    if pl.usable["discount"] > 0 and pl.line is None and not pl.discount:
        label = T_("use a discount shell: the line costs nothing")
        choices.append(StepChoice({"shell": "discount"}, "shell", label))
    if pl.usable["free-start"] > 0:
        label = T_("use a free-start shell: a new reef may start on any open space")
        choices.append(StepChoice({"shell": "free-start"}, "shell", label))
    if pl.usable["extra-tile"] > 0:
        for slot, tile in enumerate(work.nursery):
            if tile is None:
                continue
            row, column = slot // NURSERY + 1, slot % NURSERY + 1
            label = T_(
                "use an extra-tile shell: take {tile} from {slot}",
                tile=describe(tile),
                slot=slot_word(row, column),
            )
            step = {"shell": {"kind": "extra-tile", "row": row, "column": column}}
            choices.append(StepChoice(step, "shell", label))
    return choices


__all__ = ["next_steps"]
