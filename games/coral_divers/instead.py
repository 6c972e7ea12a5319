"""What to write instead: the step a refused order could have been, taken from the seat's own position.

A refusal that says only what is wrong leaves a new player guessing at the fix. Each sentence here
names a step the engine would accept at that point of the turn (a space where the tile goes, a line
within reach, the reefs to close), found with the same rules that refused the order
(:func:`.board.placement`), so the advice is never itself refused.
"""

from __future__ import annotations

from pbem.core.i18n import T_, Text

from .board import Placement, is_start_space, place, placement
from .data import SEA_MAP
from .state import State


def fitting_space(state: State, seat: str, tile: str, free_starts: int, *, may_start: bool) -> str | None:
    """The first space (in map order) where ``seat`` may put ``tile`` now, or ``None``.

    Only the spaces a tile could go to are asked of :func:`.board.placement`: beside one of the seat's
    reefs, a station's start space while a reef may be started, any space with a free start in hand
    (so a refusal is worded in a few placements, not in the hundred of the whole map)."""
    near = {q for r in state.reefs_of(seat) for c in r.cells for q in SEA_MAP.orthogonal[c]}
    anywhere = may_start and free_starts > 0
    for at in SEA_MAP.terrain:
        if at in state.tiles or not (anywhere or at in near or (may_start and is_start_space(state, at))):
            continue
        if isinstance(placement(state, seat, tile, at, free_starts, may_start=may_start), Placement):
            return at
    return None


def for_tile(state: State, seat: str, number: int, tile: str, free_starts: int, *, may_start: bool) -> Text:
    """``write `- place: {tile: 2, at: e5}` or `- discard: {tile: 2}` ``: a space where taken tile
    ``number`` goes now, or only the discard when it fits nowhere."""
    return for_tiles(state, seat, [(number, tile)], free_starts, may_start=may_start)[0]


def for_tiles(
    state: State, seat: str, tiles: list[tuple[int, str]], free_starts: int, *, may_start: bool
) -> list[Text]:
    """:func:`for_tile` for each of ``tiles`` (number, tile) in turn, each placed on a scratch copy
    before the next is asked: written one after another the advice is one legal Plant (two tiles are
    never sent to the same space, and a later one may extend a reef an earlier one starts)."""
    scratch = state.copy()
    said = []
    for number, tile in tiles:
        discard = f"- discard: {{tile: {number}}}"
        at = fitting_space(scratch, seat, tile, free_starts, may_start=may_start)
        if at is None:
            said.append(T_("write `{discard}`: this tile fits nowhere now", discard=discard))
            continue
        how = placement(scratch, seat, tile, at, free_starts, may_start=may_start)
        assert isinstance(how, Placement)
        place(scratch, seat, tile, at, how)
        free_starts -= how.free_start
        may_start = may_start and not (how.starts and scratch.new_reefs == "one-a-turn")
        place_step = f"- place: {{tile: {number}, at: {at}}}"
        said.append(T_("write `{place}` or `{discard}`", place=place_step, discard=discard))
    return said


def plant_line(lines: list[str]) -> Text | None:
    """``write `- plant: {line: row 3}` ``: the first line within reach, if any."""
    if not lines:
        return None
    return T_("write `{example}`, a line you can afford", example=f"- plant: {{line: {lines[0]}}}")


def surface(state: State, seat: str) -> Text:
    """``write `- surface: [f4, c2]` ``: one space of each of the seat's reefs (``[]`` with none)."""
    if not state.reefs_of(seat):
        return T_("write `{example}`: with no reef you close nothing", example="- surface: []")
    spaces = ", ".join(min(r.cells) for r in sorted(state.reefs_of(seat), key=lambda r: r.id))
    return T_("write `{example}`: one space of each of your reefs to close", example=f"- surface: [{spaces}]")
