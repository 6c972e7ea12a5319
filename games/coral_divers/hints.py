"""What the rules allow a seat at the start of its turn, for the template's hints.

Rules: ``shared/rules/coral-divers.md``, "Plant", "Shells" and "Surface". A hint that says "you
cannot" must be true (a new player who reads "you can place no tile" surfaces), so every answer here
is asked of the engine's own legality: :func:`.turn.affordable_lines` for the line a Plant may take and
:func:`.board.placement` (through :func:`.instead.fitting_space`) for where a taken tile may go,
never a rule of thumb beside them.
"""

from __future__ import annotations

from .instead import fitting_space
from .state import State, line_slots
from .turn import affordable_lines


def takeable_tiles(state: State, seat: str) -> list[str]:
    """The tiles ``seat`` could hold this turn: those of every line within reach, and, with an
    extra-tile shell (usable in any Plant), every tile of the nursery."""
    lines = affordable_lines(state, seat)
    if not lines:
        return []
    if "extra-tile" in state.players[seat].shells:
        return [t for t in state.nursery if t is not None]
    return [t for line in lines for s in line_slots(line) if (t := state.nursery[s]) is not None]


def some_tile_fits(state: State, seat: str) -> bool:
    """Whether a Plant could put at least one tile on the sea floor this turn.

    The first tile placed meets the board as it stands (a later one may lean on it, but only once one
    fits), so this asks, for each tile ``seat`` could take, whether some space takes it now: with every
    free-start shell held in play and no reef started yet."""
    free_starts = state.players[seat].shells.count("free-start")
    return any(
        fitting_space(state, seat, tile, free_starts, may_start=True) is not None
        for tile in set(takeable_tiles(state, seat))
    )
