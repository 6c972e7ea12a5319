"""The order template of a pending decision: comments explaining each step possible now, with examples."""

from __future__ import annotations

from .data import OPEN_SEA, TILES
from .reef import face
from .state import State


def _owned_coral_space(state: State, seat: str) -> str:
    mine = sorted(s for s, owner in state.shrimp.items() if owner == seat and s in state.polyps)
    return mine[0] if mine else f"{state.boards[0]}d5"


def template(state: State, seat: str) -> str:
    p = state.players[seat]
    lines: list[str] = []
    if state.phase == "setup":
        fish = next((c for c, n in sorted(p.screen.items()) if n), "grey")
        lines += [
            "# put one polyp from behind your screen into your parrotfish (secret) and choose",
            "# two larva cubes from the supply (any colours, may be equal; they become public):",
            f"- setup: {{parrotfish: {fish}, larvae: [{fish}, {fish}]}}",
        ]
    elif state.phase == "final":
        lines += [
            "# your final feeding turn: feed one coral of 5+ polyps that carries your shrimp",
            "# (5 polyps go back to the bag), e.g.",
            f"# - feed: {_owned_coral_space(state, seat)}",
            "# or do nothing:",
            "- pass",
        ]
    elif state.phase == "play":
        larva = next((c for c, n in sorted(p.larvae.items()) if n), "yellow")
        eaten = next((c for c, n in sorted(p.front.items()) if n), "orange")
        tile = next((t for t in sorted(TILES) if t not in state.locks), "white-yellow")
        alga = face(state, tile).large
        richest = max(OPEN_SEA, key=lambda s: (sum(state.sea[s].polyps.values()), s))
        own = _owned_coral_space(state, seat)
        lines += [
            "# steps run in the order written; action numbers as in the rules.",
            "# (1, first only) feed a coral of 5+ polyps carrying your shrimp:",
            f"#   - feed: {own}",
            f"# (2, then 3) play a larva cube:  - larva: {larva}",
            "#   then up to 4 polyps of its colour from behind your screen:  - place: Bd5",
            "#   and any number of eaten ones from in front of it:  - place: {at: Bd6, from: front}",
            "# (4) a new shrimp onto a coral without one:  - shrimp: Bd5",
            "# (5, any time) move a shrimp, or take it back behind your screen:",
            "#   - move_shrimp: {from: Bd5, to: Bd6}",
            "#   - move_shrimp: {from: Bd5, to: screen}",
            f"# (6) an eaten polyp for a larva cube:  - larva_for_polyp: {eaten}",
            "# (7) an eaten polyp for an alga, onto the algae space or (once your shrimp is on",
            "#     the open sea) locking a tile whose large alga is that colour:",
            f"#   - algae: {{pay: {eaten}, colour: {alga}, to: space}}",
            f"#   - algae: {{pay: {eaten}, colour: {alga}, to: {tile}}}",
            f"# (8) a larva cube for a polyp from the bag:  - polyp_for_larva: {larva}",
            "# (9) nothing else, then always (10) take an open-sea space by its larva colour:",
            "- pass",
            f"- take: {richest}",
        ]
    else:
        lines.append("# the game is over: nothing to send")
    return "\n".join("  " + line for line in lines) + "\n"
