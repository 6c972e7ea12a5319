"""Scoring: stations after every Plant, reefs when surfacing, and the final scoring.

Rules: ``shared/rules/coral-divers.md``, "Station scoring", "Surface" and "End of the game".
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.game import Event
from pbem.core.i18n import N_, T_, Text

from .data import ECONOMY, SEA_MAP
from .state import Reef, State
from .words import listed, separated


def reef_points(state: State, reef: Reef) -> int:
    """1 per tile, +1 per clownfish tile."""
    return len(reef.cells) + state.clownfish(reef)


def ring_full(state: State, spot: str) -> bool:
    """All 8 ring spaces hold a coral tile, a face-down seabed token or a cave."""
    return all(s in state.tiles or s in state.seabed or s in SEA_MAP.caves for s in SEA_MAP.ring[spot])


def strengths(state: State, spot: str) -> dict[str, int]:
    """Each player's tiles in their diver-marked reefs with a tile in the ring; each reef counted once,
    neutral reefs not at all. Players with none are left out."""
    seen: set[int] = set()
    out: dict[str, int] = {}
    for s in SEA_MAP.ring[spot]:
        rid = state.reef_at.get(s)
        if rid is None or rid in seen:
            continue
        seen.add(rid)
        reef = state.reefs[rid]
        if reef.owner is not None:
            out[reef.owner] = out.get(reef.owner, 0) + len(reef.cells)
    return out


def award(strength: dict[str, int], high: int, low: int) -> dict[str, int]:
    """The majority rule: most tiles take ``high``; the second most take ``low``. A tie for first gives
    every tied player ``high`` and no second; a tie for second gives every tied player ``low``; a lone
    player takes ``high`` only."""
    if not strength:
        return {}
    top = max(strength.values())
    first = [s for s, n in strength.items() if n == top]
    out = {s: high for s in first}
    if len(first) > 1:
        return out
    rest = {s: n for s, n in strength.items() if n < top}
    if rest:
        second = max(rest.values())
        out.update({s: low for s, n in rest.items() if n == second})
    return out


def award_final(strength: dict[str, int], low: int) -> dict[str, int]:
    """An unscored station at the end: only the leader(s) score, the low value."""
    if not strength:
        return {}
    top = max(strength.values())
    return {s: low for s, n in strength.items() if n == top}


def _gain(state: State, gains: dict[str, int]) -> None:
    for seat, pts in gains.items():
        p = state.players[seat]
        state.players[seat] = replace(p, points=p.points + pts)


def _award_text(gains: dict[str, int], seats: tuple[str, ...]) -> str:
    if not gains:
        return T_("nobody has a reef there")
    return listed([T_("{seat} +{points}", seat=s, points=gains[s]) for s in seats if s in gains])


def score_stations(state: State) -> list[Event]:
    """Score (and flip) every active, unscored station whose ring is full. Works on a copy."""
    events: list[Event] = []
    for spot in SEA_MAP.spots:
        st = state.stations[spot]
        if not st.revealed or st.scored or not ring_full(state, spot):
            continue
        gains = award(strengths(state, spot), st.value.high, st.value.low)
        _gain(state, gains)
        state.stations[spot] = replace(st, scored=True)
        events.append(
            Event(
                T_(
                    "station {spot} ({high}/{low}) is surrounded and scores: {awards}",
                    spot=spot,
                    high=st.value.high,
                    low=st.value.low,
                    awards=_award_text(gains, state.seats),
                ),
                data={"station": spot, "points": gains},
            )
        )
    return events


def income(divers: int) -> int:
    return ECONOMY.income.get(divers, 0)


def add_coins(coins: int, gain: int) -> int:
    """Coins after a gain: never more than the cap, the excess is lost."""
    return min(ECONOMY.coin_cap, coins + gain)


def final_scoring(state: State) -> list[Event]:
    """The end: unscored stations (low value to the leaders), reefs with a diver, unused shells, fish
    schools; then places, ties broken by coins and otherwise shared. Works on a copy."""
    parts = {
        s: {"play": state.players[s].points, "stations": 0, "reefs": 0, "shells": 0, "fish": 0}
        for s in state.seats
    }
    events: list[Event] = []
    for spot in SEA_MAP.spots:
        st = state.stations[spot]
        if not st.revealed or st.scored:
            continue
        gains = award_final(strengths(state, spot), st.value.low)
        for seat, pts in gains.items():
            parts[seat]["stations"] += pts
        events.append(
            Event(
                T_(
                    "final scoring, station {spot} (low value {low}): {awards}",
                    spot=spot,
                    low=st.value.low,
                    awards=_award_text(gains, state.seats),
                )
            )
        )
    for reef in state.reefs.values():
        if reef.owner is not None:
            parts[reef.owner]["reefs"] += reef_points(state, reef)
    for seat in state.seats:
        p = state.players[seat]
        parts[seat]["shells"] = len(p.shells)
        parts[seat]["fish"] = sum(p.fish)
        parts[seat]["total"] = sum(parts[seat].values())
        state.players[seat] = replace(p, points=parts[seat]["total"])
    state.final = parts
    key = {s: (parts[s]["total"], state.players[s].coins) for s in state.seats}
    state.places = {s: 1 + sum(1 for o in state.seats if key[o] > key[s]) for s in state.seats}
    state.tie_breaks = tie_breaks(state)
    summary = separated(
        [
            T_(
                "{seat} {total} (play {play}, stations {stations}, reefs {reefs}, shells {shells}, "
                "fish {fish})",
                seat=s,
                **parts[s],
            )
            for s in state.seats
        ]
    )
    events.append(Event(T_("the game is over: {summary}", summary=summary)))
    return events


def tie_breaks(state: State) -> list[Text]:
    """How ties on points were broken, as messages with their parameters. Derived from the final
    scores whenever shown: the stored copy (``state.tie_breaks``) is plain text after a reload, so it
    would read in English to every language."""
    if state.final is None:
        return []
    parts = state.final
    out: list[Text] = []
    for s in state.seats:
        level = [o for o in state.seats if parts[o]["total"] == parts[s]["total"]]
        if len(level) > 1 and s == level[0]:
            who = listed(level)
            coins = listed([T_("{seat}: {coins}", seat=o, coins=state.players[o].coins) for o in level])
            shared = len({state.players[o].coins for o in level}) < len(level)
            message = (
                N_("{seats}: equal on points ({points}); coins decide ({coins}); equal coins share a place")
                if shared
                else N_("{seats}: equal on points ({points}); coins decide ({coins})")
            )
            out.append(T_(message, seats=who, points=parts[s]["total"], coins=coins))
    return out
