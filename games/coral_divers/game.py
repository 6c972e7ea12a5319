"""The Coral Divers game object: setup, the turn cycle, and the host's protocol.

Rules: ``shared/rules/coral-divers.md``, "Setup" and "A turn". Legality lives in :mod:`.turn`, scoring
in :mod:`.scoring`, views in :mod:`.views`, the bot in :mod:`.bot`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, RootModel

from pbem.core.game import (
    JSON,
    Chance,
    Decision,
    Event,
    NextSteps,
    Outcome,
    Resolution,
    RulesError,
    choice,
    pick_face,
    shuffled,
)
from pbem.core.i18n import N_, P_, T_
from pbem.core.search import BUDGETS

from . import bot, guide, scoring, standin, turn, upkeep, views
from . import state as st
from .data import ECONOMY, REVEALED_AT_SETUP, SEA_MAP, STATION_VALUES, TILE_COUNTS, TOKENS
from .orders import Surface, TurnOrders
from .state import COLOURS, Player, State, Station

TURN = Decision(
    "turn", N_("Your turn: Plant (take a nursery line and place its tiles) or Surface (close reefs).")
)


class Options(BaseModel):
    """``starting_player``: the seat that acts first (default: drawn at random). ``lines``: ``rows``
    (the seed's rule, default) or ``rows-and-columns`` (ours: a Plant may take a column too).
    ``new_reefs``: ``any`` (default) or ``one-a-turn``, the rules file's cap (README ruling 15)."""

    model_config = ConfigDict(extra="forbid")

    starting_player: str | None = None
    lines: Literal["rows", "rows-and-columns"] = "rows"
    new_reefs: Literal["any", "one-a-turn"] = "any"


class CoralDivers:
    name = "coral-divers"
    #: the title in the reader's language where a rulebook gives one (the glossary's word)
    title = P_("game", "Coral Divers")
    version = "1.0.0"
    min_players = 2
    max_players = 4
    options_model = Options
    #: how hard the stand-in's levels search: the common budgets, measured here too (BENCHMARKS.md)
    budgets = BUDGETS

    # ------------------------------------------------------------------------------ setup

    def setup(self, seats: Sequence[str], options: BaseModel, chance: Chance) -> State:
        seats = tuple(seats)
        if not self.min_players <= len(seats) <= self.max_players or len(set(seats)) != len(seats):
            raise RulesError("setup.seats", T_("Coral Divers is for 2 to 4 players with distinct seat names"))
        first = getattr(options, "starting_player", None)
        if first is not None and first not in seats:
            raise RulesError(
                "setup.starting_player", T_("starting_player {first!r} is not one of the seats", first=first)
            )
        bag = dict(TILE_COUNTS)
        state = State(
            seats=seats,
            players={s: Player(s, COLOURS[i], ECONOMY.starting_coins, 0) for i, s in enumerate(seats)},
            active=0,
            nursery=[None] * (st.NURSERY * st.NURSERY),
            bag=bag,
            tiles={},
            reef_at={},
            reefs={},
            next_reef=1,
            stations={},
            seabed={},
            lines=getattr(options, "lines", "rows"),
            new_reefs=getattr(options, "new_reefs", "any"),
        )
        upkeep.refill(state, chance)
        values = shuffled(chance, "stations", STATION_VALUES, face=lambda v: f"{v.high}/{v.low}")
        spots = list(SEA_MAP.spots)
        state.stations = {spot: Station(v) for spot, v in zip(spots, values, strict=True)}
        for _ in range(REVEALED_AT_SETUP):
            spot = choice(chance, "station", [s for s in spots if not state.stations[s].revealed])
            state.stations[spot] = replace(state.stations[spot], revealed=True)
        spaces = shuffled(chance, "seabed", SEA_MAP.token_spaces)[: len(TOKENS)]
        tokens = shuffled(chance, "seabed tokens", TOKENS)
        state.seabed = dict(zip(spaces, tokens, strict=True))
        state.active = (
            seats.index(first)
            if first is not None
            else pick_face(chance, "starting player", len(seats), lambda: list(seats))
        )
        return state

    # ------------------------------------------------------------------------------ the turn

    def pending(self, state: State) -> dict[str, Decision]:
        return {} if state.over else {state.seat: TURN}

    def order_model(self, decision: Decision) -> type[RootModel]:
        if decision.kind != "turn":
            raise RulesError(
                "turn.unknown_decision", T_("Coral Divers has no {kind!r} decision", kind=decision.kind)
            )
        return TurnOrders

    def check(self, state: State, seat: str, orders: BaseModel) -> None:
        turn.carry_out(state, seat, list(orders.root))  # type: ignore[attr-defined]

    def resolve(self, state: State, orders: Mapping[str, BaseModel], chance: Chance) -> Resolution:
        seat = state.seat
        if set(orders) != {seat}:
            raise RulesError("turn.not_yours", T_("only {seat} acts now", seat=seat))
        steps = list(orders[seat].root)  # type: ignore[attr-defined]
        work, events = turn.carry_out(state, seat, steps)
        events = list(events)
        if not any(isinstance(s, Surface) for s in steps):
            events += upkeep.finish_plant(work, chance)
        elif not steps[0].surface:
            events += upkeep.finish_plant(work, chance, station_check=False)
        if not work.over:
            events += upkeep.open_station_if_shut(work, chance)
        work.actions += 1
        if not work.over:
            work.active = (work.active + 1) % len(work.seats)
        return Resolution(work, events)

    # ------------------------------------------------------------------------------ views and end

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        return views.view(state, seat)

    def table_inputs(self, view: Mapping[str, Any]) -> Mapping[str, Any]:
        return views.table_inputs(view)

    def outcome(self, state: State) -> Outcome | None:
        if state.final is None or state.places is None:
            return None
        return Outcome(
            reason=N_("the nursery is empty and the bag cannot refill it"),
            scores={s: state.final[s]["total"] for s in state.seats},
            places=dict(state.places),
            tie_breaks=tuple(scoring.tie_breaks(state)),
        )

    def bot(self, state: State, seat: str, chance: Chance) -> Any:
        return bot.choose(state, seat, chance)

    def next_steps(self, state: State, seat: str, chosen: Sequence[JSON]) -> NextSteps:
        return guide.next_steps(state, seat, chosen)

    def candidates(self, state: State, seat: str, chance: Chance, limit: int) -> list[Any]:
        return standin.candidates(state, seat, chance, limit)

    def evaluate(self, state: State, seat: str) -> float:
        return standin.evaluate(state, seat)

    def template(self, state: State, seat: str) -> str:
        return views.template(state, seat)

    # ------------------------------------------------------------------------------ storage and secrets

    def dump_state(self, state: State) -> dict[str, Any]:
        return st.dump(state)

    def load_state(self, data: Any) -> State:
        return st.load(data)

    def resample_hidden(self, state: State, seat: str, chance: Chance) -> State:
        """Face-down tokens dealt anew among their spaces; unrevealed station values among their spots.
        Nothing else is hidden: the bag's contents follow from the public tiles, and it has no order.

        The hidden things are sorted before they are dealt, so the deal starts from what the seat can
        tell (which kinds and values are still out, not where they lie) and depends on that and on the
        chance alone: a search dealing worlds this way learns nothing of the real arrangement."""
        other = state.copy()
        if state.over:
            return other
        spaces = sorted(state.seabed)
        kinds = shuffled(chance, "resample seabed", sorted(state.seabed.values()))
        other.seabed = dict(zip(spaces, kinds, strict=True))
        reserved = [s for s in sorted(state.stations) if not state.stations[s].revealed]
        out = sorted((state.stations[s].value for s in reserved), key=lambda v: (v.high, v.low))
        values = shuffled(chance, "resample stations", out)
        for spot, value in zip(reserved, values, strict=True):
            other.stations[spot] = replace(state.stations[spot], value=value)
        return other


__all__ = ["TURN", "CoralDivers", "Event", "Options"]
