"""What a seat may see, and the order template of its turn.

Rules: ``shared/rules/coral-divers.md``, "What each player may see": everything is public except the
face-down seabed tokens, the bag, and (our ruling) the values of stations not yet revealed. This module
is the one place those are left out; once the game is over they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.i18n import N_, T_, TN_, _, comment, series

from .data import SEA_MAP
from .hints import some_tile_fits
from .scoring import reef_points, ring_full, strengths
from .state import LINES, NURSERY, State, coral, has_clownfish
from .turn import affordable_lines, fullest_row, line_cost, may_surface_without_reef
from .upkeep import free_start_spaces
from .words import colour_word, coral_word, line_word, shell_word

TERRAIN = {".": "sea", "#": "cave", "S": "station"}

#: each shell's example step, and what it does (a message: the comment is in the reader's words)
SHELL_EXAMPLES = {
    "pearl": ("  # - shell: pearl        # ", N_("+2 coins, at any time while planting")),
    "discount": ("  # - shell: discount     # ", N_("before `plant`: the line costs nothing")),
    "free-start": ("  # - shell: free-start   # ", N_("your next new reef may start on any open space")),
    "extra-tile": (
        "  # - shell: {kind: extra-tile, row: 3, column: 1}   # ",
        N_("one tile more, numbered after the line's"),
    ),
}


def _tile(code: str | None) -> dict[str, Any] | None:
    if code is None:
        return None
    return {
        "coral": coral_word(coral(code)),
        "clownfish": has_clownfish(code),
        "letter": coral(code)[0].upper(),
    }


def _token_word(token: str) -> str:
    """A seabed token's kind in the reader's words: a shell's term, or a fish school and its value."""
    if token.startswith("fish-"):
        return T_("fish school {value}", value=int(token.removeprefix("fish-")))
    return shell_word(token)


def _station(state: State, spot: str) -> dict[str, Any]:
    st = state.stations[spot]
    shown = st.revealed or state.over
    ring = SEA_MAP.ring[spot]
    filled = sum(1 for s in ring if s in state.tiles or s in state.seabed or s in SEA_MAP.caves)
    return {
        "at": spot,
        "revealed": st.revealed,
        "scored": st.scored,
        "high": st.value.high if shown else None,
        "low": st.value.low if shown else None,
        "ring": list(ring),
        "start": list(SEA_MAP.start[spot]),
        "filled": filled,
        "full": ring_full(state, spot),
        "strength": strengths(state, spot) if st.revealed and not st.scored else {},
    }


def table_inputs(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the report's shared table shows of ``view``: everything but whose report it is (``seat``),
    as a seat holds nothing hidden; the same for every seat of a turn."""
    return {key: value for key, value in view.items() if key != "seat"}


def view(state: State, seat: str | None) -> dict[str, Any]:
    colours = {s: colour_word(state.players[s].colour) for s in state.seats}
    number = {s: i + 1 for i, s in enumerate(state.seats)}
    starts = {q for spot, st in state.stations.items() if st.revealed for q in SEA_MAP.start[spot]}
    rings = {
        q for spot, st in state.stations.items() if st.revealed and not st.scored for q in SEA_MAP.ring[spot]
    }
    board = []
    for r in range(1, SEA_MAP.rows + 1):
        row = []
        for c in SEA_MAP.columns:
            at = f"{c}{r}"
            rid = state.reef_at.get(at)
            reef = None if rid is None else state.reefs[rid]
            owner = None if reef is None else reef.owner
            row.append(
                {
                    "at": at,
                    "terrain": TERRAIN[SEA_MAP.terrain[at]],
                    "tile": _tile(state.tiles.get(at)),
                    "reef": rid,
                    "owner": owner,
                    "owner_number": number.get(owner) if owner else None,
                    "colour": colours.get(owner) if owner else None,
                    "diver": reef is not None and reef.diver == at,
                    "token": at in state.seabed,
                    "token_kind": state.seabed.get(at) if state.over else None,
                    # its kind in the reader's words (a shell's term, "fish school 3")
                    "token_word": _token_word(state.seabed[at])
                    if state.over and at in state.seabed
                    else None,
                    "start": at in starts and at not in state.tiles,
                    "ring": at in rings,
                }
            )
        board.append(row)
    players = []
    for s in state.seats:
        p = state.players[s]
        players.append(
            {
                "seat": s,
                "number": number[s],
                "colour": colour_word(p.colour),
                "coins": p.coins,
                "points": p.points,
                "divers": state.divers_on_board(s),
                "reefs": len(state.reefs_of(s)),
                "shells": [shell_word(k) for k in p.shells],
                "fish": list(p.fish),
                "used": [shell_word(k) for k in p.used],
                "discarded": p.discarded,
            }
        )
    out: dict[str, Any] = {
        "seat": seat,
        "colours": colours,
        "seats": list(state.seats),
        "to_move": None if state.over else state.seat,
        "over": state.over,
        "actions": state.actions,
        "columns": list(SEA_MAP.columns),
        "rows": list(range(1, SEA_MAP.rows + 1)),
        "board": board,
        "players": players,
        "stations": [_station(state, s) for s in sorted(SEA_MAP.spots)],
        "reefs": [
            {
                "id": r.id,
                "coral": coral_word(r.coral),
                "owner": r.owner,
                "colour": colours.get(r.owner) if r.owner else None,
                "size": len(r.cells),
                "clownfish": state.clownfish(r),
                "points": reef_points(state, r),
                "diver": r.diver,
                "cells": sorted(r.cells),
            }
            for r in sorted(state.reefs.values(), key=lambda r: r.id)
        ],
        "nursery": [[_tile(state.nursery[r * NURSERY + c]) for c in range(NURSERY)] for r in range(NURSERY)],
        "line_costs": {line: line_cost(state, line) for line in LINES},
        # the lines a Plant may take (the option ``lines``): rows, or rows and columns
        "lines": list(state.choosable_lines()),
        "columns_allowed": state.lines == "rows-and-columns",
        "bag": sum(state.bag.values()),
        # tiles a Surface without a reef put out of the game (README ruling 16)
        "cleared": state.cleared,
        "face_down": sorted(state.seabed),
        "final": state.final,
        # the kinds of tokens never taken: shown only once the game is over
        "face_down_revealed": {k: _token_word(state.seabed[k]) for k in sorted(state.seabed)}
        if state.over
        else {},
    }
    return out


def template(state: State, seat: str) -> str:
    """The ``orders:`` lines of ``seat``'s turn: every step possible now, commented, with examples."""
    if state.over or seat != state.seat:
        return "  []\n"
    p = state.players[seat]
    mine = sorted(state.reefs_of(seat), key=lambda r: r.id)
    lines = comment("Your turn: exactly one action, Plant or Surface (no passing).", lead="  # ")
    within = affordable_lines(state, seat)
    affordable = bool(within)
    if affordable:
        # Translators: a nursery line and what it costs ("row 2: 4 coins"), in a list of them
        costs = series(
            [
                TN_("{line}: {n} coin", "{line}: {n} coins", line_cost(state, line), line=line_word(line))
                for line in within
            ]
        )
        # the example takes a line that holds tiles and that the player can afford: the one with most
        suggested = max(within, key=lambda line: (line_cost(state, line), -within.index(line)))
        lines += [
            *comment(
                "PLANT: take every tile of one nursery line, 1 coin per tile (you have {coins}).",
                lead="  # ",
                coins=p.coins,
            ),
            *comment("lines you can afford and their costs: {costs}", lead="  #   ", costs=costs),
            "  # - plant: {line: " + suggested + "}",
            *comment(
                "then place or discard every taken tile (`tile` = its place in the line, 1-4):", lead="  # "
            ),
            "  # - place: {tile: 1, at: e4}   # "
            + _("extend your reef, or start one on a station's start space"),
            "  # - discard: {tile: 2}         # " + _("-3 points"),
        ]
        if state.new_reefs == "one-a-turn":
            lines += comment("(this game's option: at most one new reef a turn)", lead="  #   ")
        starts = free_start_spaces(state)
        if starts:
            lines += comment(
                "free start spaces now: {spaces} (divers on the board: {divers})",
                lead="  #   ",
                spaces=series(starts),
                divers=state.divers_on_board(seat),
            )
        for kind in sorted(set(p.shells)):
            example, says = SHELL_EXAMPLES[kind]
            lines.append(example + _(says))
    if mine:
        # Translators: one of the player's reefs in the template: a space of it, its coral, its tiles
        spaces = series(
            [
                T_("{space} ({coral}, {n})", space=min(r.cells), coral=coral_word(r.coral), n=len(r.cells))
                for r in mine
            ]
        )
        lines += [
            *comment(
                "SURFACE instead: close reefs (one space of each) for points, then income.", lead="  # "
            ),
            *comment("your reefs: {spaces}", lead="  #   ", spaces=spaces),
            f"  # - surface: [{', '.join(min(r.cells) for r in mine)}]",
        ]
    elif may_surface_without_reef(state, seat):
        lines += _surface_without_reef(state, seat, affordable)
    return "\n".join(lines) + "\n"


def _surface_without_reef(state: State, seat: str, affordable: bool) -> list[str]:
    """The hint of a seat with no reef: it may always surface without closing anything (ruling 16).
    A reason is given only when the engine bears it out (no line within reach, or no tile of one fits
    anywhere); otherwise the hint says only what the rule allows, since a player told "you cannot
    plant" surfaces when a Plant was open to them."""
    row = line_word(fullest_row(state))
    if not affordable:
        why: str | None = _("you can afford no line")
    elif not some_tile_fits(state, seat):
        why = _("no tile of a line you can afford fits anywhere on the sea floor")
    else:
        why = None
    if why is None:
        said = comment(
            "You have no reef: you may surface without closing anything, for income; {row} of the "
            "nursery then goes out of the game.",
            lead="  # ",
            row=row,
        )
    else:
        said = comment(
            "You have no reef and {why}: you may surface without closing anything, for income; {row} of "
            "the nursery then goes out of the game.",
            lead="  # ",
            why=why,
            row=row,
        )
    return [*said, "  - surface: []" if not affordable else "  # - surface: []"]
