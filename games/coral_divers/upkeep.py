"""After an action, what chance decides: the nursery refilled from the bag (and a new station
revealed) when it runs low, the station check, the end when nursery and bag are empty; a reserved
station revealed when no start space is free.

Rules: ``shared/rules/coral-divers.md``, "Plant" and "Surface". :mod:`.turn` decides whether an action
is legal and carries it out without chance; ``resolve`` then calls :func:`finish_plant` and
:func:`open_station_if_shut`.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.game import Chance, Event, choice, draw_from_counts
from pbem.core.i18n import T_

from . import scoring
from .data import ECONOMY, SEA_MAP
from .state import State


def finish_plant(work: State, chance: Chance, *, station_check: bool = True) -> list[Event]:
    """After the placements: refill (and a new station) when 3 or fewer tiles remain and the bag has
    tiles; the station check; the end when the nursery is empty and the bag too. After a Surface that
    cleared a row: the same without the station check (that follows a Plant only)."""
    events: list[Event] = []
    bag_total = sum(work.bag.values())
    if work.nursery_count() <= ECONOMY.refill_at_most and bag_total > 0:
        reserved = [s for s in sorted(work.stations) if not work.stations[s].revealed]
        if reserved:
            spot = choice(chance, "station", reserved)
            st = work.stations[spot]
            work.stations[spot] = replace(st, revealed=True)
            events.append(
                Event(
                    T_(
                        "a new station is revealed at {spot}: {high}/{low}",
                        spot=spot,
                        high=st.value.high,
                        low=st.value.low,
                    )
                )
            )
        filled = refill(work, chance)
        events.append(
            Event(
                T_(
                    "the nursery is refilled (tiles: {filled}; left in the bag: {left})",
                    filled=filled,
                    left=sum(work.bag.values()),
                )
            )
        )
    if station_check:
        events += scoring.score_stations(work)
    if work.nursery_count() == 0 and sum(work.bag.values()) == 0:
        events += scoring.final_scoring(work)
    return events


def free_start_spaces(state: State) -> list[str]:
    """Empty start spaces of the active (revealed) stations."""
    return sorted(
        {q for spot, st in state.stations.items() if st.revealed for q in SEA_MAP.start[spot]}
        - set(state.tiles)
    )


def open_station_if_shut(work: State, chance: Chance) -> list[Event]:
    """After an action: when no start space of any active station is free, a reserved station is
    revealed (at random among the reserved spots, if any), so that new reefs can still be started."""
    if free_start_spaces(work):
        return []
    reserved = [s for s in sorted(work.stations) if not work.stations[s].revealed]
    if not reserved:
        return []
    spot = choice(chance, "station", reserved)
    st = work.stations[spot]
    work.stations[spot] = replace(st, revealed=True)
    return [
        Event(
            T_(
                "no start space is free: a new station is revealed at {spot}: {high}/{low}",
                spot=spot,
                high=st.value.high,
                low=st.value.low,
            ),
            data={"station": spot},
        )
    ]


def refill(work: State, chance: Chance) -> int:
    """Fill every empty nursery slot from the bag, slot by slot, while the bag lasts."""
    filled = 0
    for slot, tile in enumerate(work.nursery):
        if tile is not None or sum(work.bag.values()) == 0:
            continue
        drawn = draw_from_counts(chance, "bag", work.bag)
        work.bag[drawn] -= 1
        if work.bag[drawn] == 0:
            del work.bag[drawn]
        work.nursery[slot] = drawn
        filled += 1
    return filled
