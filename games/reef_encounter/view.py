"""What each seat may see (rules section 8): the public table plus only its own screen and parrotfish.

This is the one place secrets are stripped; reports are drawn from :func:`view` alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem.core.i18n import Text

from .data import BOARDS, COLUMNS, CORAL_COLOURS, OPEN_SEA, ROWS, TILES
from .reef import face, values
from .scoring import end_reason, score
from .sea import polyps_back
from .state import State
from .words import COLOURS, colour, tile


@cache
def _spaces(letter: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """(space, kind) of every cell of board ``letter``, row by row: the printed board, worked out once."""
    b = BOARDS[letter]
    return tuple(
        tuple(
            (space, "sand" if space in b.sand else ("starfish" if space == b.starfish else "rock"))
            for space in (f"{letter}{c}{r}" for c in COLUMNS)
        )
        for r in range(1, ROWS + 1)
    )


#: a board's cell as a view shows it: (space, kind, polyp, shrimp, shrimp_colour); the kind is
#: ``rock``, ``sand`` or ``starfish``, the polyp its colour, the shrimp its seat and that seat's
#: colour, ``None`` where nothing lies. A tuple: a view's boards cannot be changed by a reader, so the
#: empty cells are shared by every view (a board is 42 cells and a few hold a piece), and a tuple
#: costs less than a dict to pickle (pbem.render.tables keys a report's table by its pickle)
Cell = tuple[str, str, str | None, str | None, str | None]


@cache
def _blank(letter: str) -> tuple[tuple[Cell, ...], ...]:
    """Every cell of board ``letter`` with nothing on it, row by row."""
    return tuple(tuple((space, kind, None, None, None) for space, kind in row) for row in _spaces(letter))


@cache
def _places() -> dict[str, tuple[str, int, int]]:
    """Where each space of every board is in its board's rows: (board, row, column)."""
    return {
        space: (letter, r, c)
        for letter in BOARDS
        for r, row in enumerate(_spaces(letter))
        for c, (space, _kind) in enumerate(row)
    }


def _boards(state: State) -> list[dict[str, Any]]:
    """Each board in play, row by row, a :data:`Cell` for every space: the empty board's, with a cell
    made anew for each space that holds a polyp or a shrimp (only those spaces are looked at)."""
    polyps, shrimps, players = state.polyps, state.shrimp, state.players
    rows_of = {letter: [list(row) for row in _blank(letter)] for letter in state.boards}
    places = _places()
    for space in (*polyps, *shrimps):
        letter, r, c = places[space]
        row = rows_of[letter][r]
        shrimp = shrimps.get(space)
        row[c] = (space, row[c][1], polyps.get(space), shrimp, players[shrimp].colour if shrimp else None)
    return [{"letter": letter, "rows": tuple(map(tuple, rows_of[letter]))} for letter in state.boards]


def _own(state: State, seat: str) -> dict[str, Any]:
    p = state.players[seat]
    return {
        "screen": dict(p.screen),
        "larvae": dict(p.larvae),
        "shrimp": p.shrimp,
        "parrotfish": dict(p.parrotfish),
        "eaten_shrimp": p.eaten_shrimp,
        "score": score(state, seat),
    }


@cache
def _words() -> dict[str, Text]:
    """The game's words by their English names; the same for every view (a view gets a copy)."""
    return {**COLOURS, **{name: tile(name) for name in TILES}}


def table_inputs(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the report's shared table shows of ``view``: all but the reader's own screen (``me``),
    shown in its "yours alone"; the same for every seat of a turn."""
    return {key: value for key, value in view.items() if key != "me"}


def view(state: State, seat: str | None) -> dict[str, Any]:
    over = state.phase == "over"
    tiles = []
    for name in TILES:
        f = face(state, name)
        tiles.append(
            {
                "name": name,
                "strong": f.strong,
                "weak": f.weak,
                "large": f.large,
                "small": f.small,
                "starfish": state.up[name],
                "lock": state.locks.get(name),
            }
        )
    players = {}
    for s in state.seats:
        p = state.players[s]
        players[s] = {
            "colour": p.colour,
            "front": dict(p.front),
            "feedings": p.feedings,
            "sea_shrimp": p.sea_shrimp,
            "shrimp_on_boards": sum(1 for owner in state.shrimp.values() if owner == s),
        }
    out: dict[str, Any] = {
        # a seat's colour as a term, so the report's header says it in the reader's words
        "colours": {s: colour(state.players[s].colour) for s in state.seats},
        # the game's words by their English names, for the templates (``view.words[c] | translated``)
        "words": dict(_words()),
        "seats": list(state.seats),
        "phase": state.phase,
        "active": state.active,
        "final_queue": list(state.final_queue),
        "end_reason": end_reason(state),
        "advanced": state.advanced,
        # polyps a feeding returns to the bag, as the engine counts them (sea.polyps_back)
        "polyps_back": {"feeding": polyps_back(state, False), "final_feeding": polyps_back(state, True)},
        "colour_order": list(CORAL_COLOURS),
        "boards": _boards(state),
        "open_sea": [
            {
                "space": name,
                "larva": state.sea[name].larva,
                "polyps": [c for c in CORAL_COLOURS for _ in range(state.sea[name].polyps[c])],
            }
            for name in OPEN_SEA
        ],
        "bonus": dict(state.bonus),
        "bag": sum(state.bag.values()),
        "tiles": tiles,
        "values": values(state),
        "algae_space": state.algae_space,
        "larva_supply": dict(state.larva_supply),
        "algae_supply": dict(state.algae_supply),
        "players": players,
        "me": _own(state, seat) if seat is not None and seat in state.players else None,
    }
    if over:
        out["revealed"] = {s: _own(state, s) for s in state.seats}
    return out
