"""The order template of a pending decision: comments explaining each step possible now, with examples."""

from __future__ import annotations

from pbem.core.i18n import TN_, comment

from .data import BOARDS, NEIGHBOURS, OPEN_SEA, TILES
from .reef import coral, face
from .sea import polyps_back
from .state import State


def _owned_coral_space(state: State, seat: str) -> str:
    mine = sorted(s for s, owner in state.shrimp.items() if owner == seat and s in state.polyps)
    return mine[0] if mine else f"{state.boards[0]}d5"


def _free_spaces(state: State) -> tuple[str, str]:
    """Two neighbouring empty rock spaces of this game's boards, for the examples."""
    for letter in state.boards:
        for space in sorted(BOARDS[letter].rock):
            if space in state.polyps or space in state.shrimp:
                continue
            for n in NEIGHBOURS[space]:
                if n not in state.polyps and n not in state.shrimp:
                    return space, n
    return f"{state.boards[0]}d5", f"{state.boards[0]}d6"


def template(state: State, seat: str) -> str:
    p = state.players[seat]
    lines: list[str] = []
    if state.phase == "setup":
        fish = next((c for c, n in sorted(p.screen.items()) if n), "grey")
        lines += [
            *comment(
                "put one polyp from behind your screen into your parrotfish (secret) and choose two larva "
                "cubes from the supply (any colours, may be equal; they become public):"
            ),
            f"- setup: {{parrotfish: {fish}, larvae: [{fish}, {fish}]}}",
        ]
    elif state.phase == "final":
        lines += [
            *comment("your final feeding turn: feed one coral of 5+ polyps carrying your shrimp"),
            *comment(
                TN_(
                    "({n} polyp goes back to the bag), e.g.",
                    "({n} polyps go back to the bag), e.g.",
                    polyps_back(state, final=True),
                )
            ),
            f"# - feed: {_owned_coral_space(state, seat)}",
            *comment("or do nothing:"),
            "- pass",
        ]
    elif state.phase == "play":
        larva = next((c for c, n in sorted(p.larvae.items()) if n), "yellow")
        eaten = next((c for c, n in sorted(p.front.items()) if n), "orange")
        tile = next((t for t in sorted(TILES) if t not in state.locks), "white-yellow")
        alga = face(state, tile).large
        richest = max(OPEN_SEA, key=lambda s: (sum(state.sea[s].polyps.values()), s))
        own = _owned_coral_space(state, seat)
        here, there = _free_spaces(state)
        guarded = {s for sp in state.shrimp if sp in state.polyps for s in coral(state, sp)}
        bare = next((sp for sp in sorted(state.polyps) if sp not in guarded), here)
        lines += [
            *comment("steps run in the order written; action numbers as in the rules."),
            *comment("(1, only first) feed a coral of 5+ polyps carrying your shrimp"),
            *comment(
                TN_(
                    "({n} polyp goes back to the bag):",
                    "({n} polyps go back to the bag):",
                    polyps_back(state, final=False),
                ),
                lead="#   ",
            ),
            f"#   - feed: {own}",
            *comment(
                "(2, then 3) play a larva cube, then up to 4 polyps of its colour from behind your screen "
                "and any number of eaten ones from in front of it:",
                follow="#   ",
            ),
            f"#   - larva: {larva}",
            f"#   - place: {here}",
            f"#   - place: {{at: {there}, from: front}}",
            *comment("(4) a new shrimp onto a polyp of a coral without one:", follow="#   "),
            f"#   - shrimp: {bare}",
            *comment("(5, any time) move a shrimp, or take it back behind your screen:", follow="#   "),
            f"#   - move_shrimp: {{from: {own}, to: {here}}}",
            f"#   - move_shrimp: {{from: {own}, to: screen}}",
            *comment("(6) an eaten polyp for a larva cube of its colour:", follow="#   "),
            f"#   - larva_for_polyp: {eaten}",
            *comment(
                "(7) an eaten polyp for an alga, onto the algae space, or (once your shrimp is on the "
                "open sea) locking a tile showing that large alga:",
                follow="#   ",
            ),
            f"#   - algae: {{pay: {eaten}, colour: {alga}, to: space}}",
            f"#   - algae: {{pay: {eaten}, colour: {alga}, to: {tile}}}",
            *comment("(8) a larva cube for a polyp of its colour from the bag:", follow="#   "),
            f"#   - polyp_for_larva: {larva}",
            *comment(
                "(9) nothing, then always (10) take an open-sea space by its larva colour:", follow="#   "
            ),
            "- pass",
            f"- take: {richest}",
        ]
    else:
        lines += comment("the game is over: nothing to send")
    return "\n".join("  " + line for line in lines) + "\n"
