"""Scores and ties (rules sections 7 and 10)."""

from __future__ import annotations

from pbem.core.game import Outcome
from pbem.core.i18n import N_, T_, TN_, Text, series

from .reef import protected_polyps, values
from .state import State
from .words import and_list

#: the tie-breaks of section 10, in order
TIE_BREAKS = (
    N_("eaten polyps in front of the screen"),
    N_("larva cubes behind the screen"),
    N_("polyps behind the screen"),
    N_("polyps on the boards in corals protected by their shrimp"),
)
#: the ways the game ends that are not one seat's (the runner's ``ended``), as the reports say them
ENDS = (
    N_("no polyp can be placed anywhere"),
    N_("every coral tile is locked by an alga"),
    N_("the open sea could not be refilled or the bag holds fewer than 3 polyps"),
)


def score(state: State, seat: str) -> int:
    """Each polyp in the parrotfish scores the value of its colour."""
    v = values(state)
    return sum(v[c] * n for c, n in state.players[seat].parrotfish.items())


def tie_keys(state: State, seat: str) -> tuple[int, int, int, int]:
    p = state.players[seat]
    return (
        sum(p.front.values()),
        sum(p.larvae.values()),
        sum(p.screen.values()),
        protected_polyps(state, seat),
    )


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    scores = {s: score(state, s) for s in state.seats}
    keys = {s: (scores[s], *tie_keys(state, s)) for s in state.seats}
    places = {s: 1 + sum(1 for t in state.seats if keys[t] > keys[s]) for s in state.seats}
    notes = []
    for s in state.seats:
        tied = [t for t in state.seats if t != s and scores[t] == scores[s]]
        if tied and s < min(tied):
            group = [s, *tied]
            for depth, name in enumerate(TIE_BREAKS, start=1):
                if len({keys[t][: depth + 1] for t in group}) > 1:
                    detail = series([f"{t} {keys[t][depth]}" for t in group])
                    notes.append(
                        TN_(
                            "{seats} tied on {n} point; broken by {tie_break}: {detail}",
                            "{seats} tied on {n} points; broken by {tie_break}: {detail}",
                            scores[s],
                            seats=and_list(group),
                            tie_break=T_(name),
                            detail=detail,
                        )
                    )
                    break
            else:
                notes.append(
                    TN_(
                        "{seats} tied on {n} point and every tie-break: shared place",
                        "{seats} tied on {n} points and every tie-break: shared place",
                        scores[s],
                        seats=and_list(group),
                    )
                )
    return Outcome(end_reason(state), scores, places, tuple(notes))


def end_reason(state: State) -> str | Text:
    """Why the game ended, as words a report can put in its reader's language (English unchanged)."""
    for seat in state.seats:
        if state.end_reason == f"{seat} fed their fourth coral":
            return T_("{seat} fed their fourth coral", seat=seat)
    if state.end_reason in ENDS:
        return T_(state.end_reason)
    return state.end_reason
