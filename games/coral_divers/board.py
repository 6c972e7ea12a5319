"""Placing a coral tile on the sea floor: extending, starting, merging and absorbing reefs.

Rules: ``shared/rules/coral-divers.md``, "Placement". :func:`placement` says what a tile on a space
would do, or why it may not go there; :func:`place` carries it out on a working copy of the state.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.i18n import T_, TN_, Text

from .data import SEA, SEA_MAP
from .state import Reef, State, coral
from .words import coral_word


@dataclass(frozen=True)
class Refusal:
    """Why a tile may not go on a space: a stable rule code and a player's sentence."""

    code: str
    message: str


@dataclass(frozen=True)
class Placement:
    """What a legal tile on a space does: the own reefs it joins, the neutral reefs it absorbs, and
    whether it starts a new reef (then ``free_start`` says it spends a free-start shell)."""

    own: tuple[int, ...]
    neutral: tuple[int, ...]
    starts: bool
    free_start: bool


def is_start_space(state: State, space: str) -> bool:
    """Whether ``space`` is a start space of a revealed (active) station."""
    return any(state.stations[s].revealed for s in SEA_MAP.orthogonal[space] if s in state.stations)


def placement(
    state: State, seat: str, tile: str, at: str, free_starts: int = 0, *, may_start: bool = True
) -> Placement | Refusal:
    """What ``seat`` putting ``tile`` on ``at`` would do, or the rule it breaks.

    ``free_starts`` is how many free-start shells are in play this turn and not yet spent;
    ``may_start`` is False once the player has started a reef this turn (at most one a turn).
    """
    terrain = SEA_MAP.terrain.get(at)
    if terrain != SEA:
        if terrain == "#":
            return Refusal("place.not_open", T_("{at} is a cave: corals go only on open sea floor", at=at))
        return Refusal(
            "place.not_open", T_("{at} is a station spot: corals go only on open sea floor", at=at)
        )
    if at in state.tiles:
        return Refusal("place.occupied", T_("{at} already holds a coral tile", at=at))
    kind = coral(tile)
    word = coral_word(kind)  # the kind as the reader says it, in a refusal's words
    own: list[int] = []
    neutral: list[int] = []
    for q in SEA_MAP.orthogonal[at]:
        rid = state.reef_at.get(q)
        if rid is None:
            continue
        reef = state.reefs[rid]
        if reef.coral != kind or rid in own or rid in neutral:
            continue
        if reef.owner is None:
            neutral.append(rid)
        elif reef.owner == seat:
            own.append(rid)
        else:
            return Refusal(
                "place.touches_other_reef",
                T_(
                    "a {kind} tile on {at} would touch {owner}'s {kind} reef",
                    kind=word,
                    at=at,
                    owner=reef.owner,
                ),
            )
    if own:
        size = sum(len(state.reefs[r].cells) for r in own)
        for rid in neutral:
            n = len(state.reefs[rid].cells)
            if n > size:
                return Refusal(
                    "place.neutral_too_big",
                    T_(
                        "a {kind} tile on {at} would join a neutral {kind} reef (tiles: {n}) to your reef "
                        "(tiles: {size}): a neutral reef may be absorbed only if it is no larger than yours",
                        kind=word,
                        at=at,
                        n=n,
                        size=size,
                    ),
                )
        return Placement(tuple(sorted(own)), tuple(sorted(neutral)), starts=False, free_start=False)
    if neutral:
        return Refusal(
            "place.new_reef_touches_neutral",
            T_("a new {kind} reef on {at} would touch a neutral {kind} reef", kind=word, at=at),
        )
    if not may_start:
        return Refusal(
            "place.one_new_reef",
            T_(
                "a {kind} tile on {at} extends none of your {kind} reefs and would start a second new reef "
                "this turn: a player starts at most one new reef per turn",
                kind=word,
                at=at,
            ),
        )
    if state.divers_on_board(seat) <= 0:
        return Refusal(
            "place.no_diver",
            T_("a {kind} tile on {at} would start a new reef, and you have no diver left", kind=word, at=at),
        )
    if is_start_space(state, at):
        return Placement((), (), starts=True, free_start=False)
    if free_starts > 0:
        return Placement((), (), starts=True, free_start=True)
    return Refusal(
        "place.not_start_space",
        T_(
            "a {kind} tile on {at} extends none of your {kind} reefs, and a new reef must start on a start "
            "space of an active station (or use a free-start shell)",
            kind=word,
            at=at,
        ),
    )


def placement_notes(how: Placement, size: int) -> list[Text]:
    """What a placement does, in words: a new reef, the reefs merged and absorbed, the reef's ``size``
    after it."""
    notes: list[Text] = []
    if how.starts:
        notes.append(T_("new reef, free start") if how.free_start else T_("new reef"))
    if len(how.own) > 1:
        merged = len(how.own)
        notes.append(TN_("merges {n} reef, a diver goes home", "merges {n} reefs, a diver goes home", merged))
    if how.neutral:
        notes.append(TN_("absorbs {n} neutral reef", "absorbs {n} neutral reefs", len(how.neutral)))
    if not how.starts:
        notes.append(T_("reef of {n}", n=size))
    return notes


def place(state: State, seat: str, tile: str, at: str, how: Placement) -> Reef:
    """Put ``tile`` on ``at`` (``how`` from :func:`placement`) in ``state``, a working copy. Returns the
    reef the tile now belongs to. Merged own reefs keep the diver of the largest (then the oldest); the
    others' divers go home."""
    state.tiles[at] = tile
    if how.starts:
        rid = state.next_reef
        state.next_reef += 1
        reef = Reef(rid, coral(tile), seat, frozenset((at,)), at)
    else:
        keeper = max(how.own, key=lambda r: (len(state.reefs[r].cells), -r))
        cells = {at}
        for rid in (*how.own, *how.neutral):
            cells |= state.reefs[rid].cells
            if rid != keeper:
                del state.reefs[rid]
        old = state.reefs[keeper]
        reef = Reef(keeper, old.coral, seat, frozenset(cells), old.diver)
    state.reefs[reef.id] = reef
    for c in reef.cells:
        state.reef_at[c] = reef.id
    return reef
