"""The :class:`pbem.core.game.Game` object for Mare Balticum: options, decisions, check and resolve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, RootModel

from pbem.core.game import Chance, Decision, Event, NextSteps, Outcome, Resolution, RulesError
from pbem.core.i18n import N_, P_, T_

from . import bot as _bot
from . import guide as _guide
from . import standin as _standin
from . import template as _template
from .orders import Company, PortChoice, order_model
from .rules import place_first_ship, play_turn, setup
from .scoring import outcome
from .seasons import after_turn, check_company, resolve_company
from .state import State, dump_state, load_state
from .views import resample_hidden, table_inputs, view


class Options(BaseModel):
    """``demand: placed`` is variant 1 (ports start empty), ``contracts: true`` variant 2;
    ``starting_player`` names a seat (default: drawn at random)."""

    model_config = ConfigDict(extra="forbid")

    demand: Literal["fixed", "placed"] = "fixed"
    contracts: bool = False
    starting_player: str | None = None


PROMPTS = {
    "port": N_("Choose the port for your first ship."),
    "turn": N_("Your turn: up to 3 actions (sail, fish, unload); discards are free."),
    "turn-contracts": N_("Your turn: up to 3 actions (sail, fish, unload, contract); discards are free."),
    "company": N_("Time token {n}: choose one of your company tokens (all players at once)."),
}


def _orders_list(orders: Any) -> list[Any]:
    return list(orders.root) if isinstance(orders, RootModel) else list(orders)


class MareBalticum:
    """Mare Balticum for 3 to 5 players (rules: shared/rules/mare-balticum.md)."""

    name = "mare-balticum"
    #: the title in the reader's language where a rulebook gives one (the glossary's word)
    title = P_("game", "Mare Balticum")
    version = "1.0.0"
    min_players = 3
    max_players = 5
    options_model = Options
    #: how hard the stand-in's levels search: to the end of the game (``standin.BUDGETS``)
    budgets = _standin.BUDGETS

    def setup(self, seats: Sequence[str], options: BaseModel, chance: Chance) -> State:
        return setup(seats, options, chance)

    def pending(self, state: State) -> dict[str, Decision]:
        if state.phase == "port":
            return {state.active: Decision("port", PROMPTS["port"])}
        if state.phase == "turn":
            prompt = PROMPTS["turn-contracts" if state.options["contracts"] else "turn"]
            return {state.active: Decision("turn", prompt)}
        if state.phase == "company":
            prompt = T_(PROMPTS["company"], n=state.time_track)
            return {seat: Decision("company", prompt) for seat in state.order}
        return {}

    def order_model(self, decision: Decision) -> type[BaseModel]:
        return order_model(decision)

    def expect_pending(self, state: State, seat: str) -> str:
        """The decision kind ``seat`` owes, or the error ``check`` raises when it owes none."""
        pend = self.pending(state)
        if seat not in pend:
            if state.phase == "over":
                raise RulesError("decision.game_over", T_("the game is over; no orders are due"))
            raise RulesError("decision.not_pending", T_("{seat} owes no orders now", seat=seat))
        return pend[seat].kind

    def _expect(self, state: State, seat: str, orders: BaseModel) -> str:
        """The decision kind ``seat`` owes, checking that ``orders`` are of that kind."""
        kind = self.expect_pending(state, seat)
        pend = self.pending(state)
        if not isinstance(orders, order_model(pend[seat])):
            raise RulesError("decision.wrong_kind", T_("orders for a {kind} decision are due now", kind=kind))
        return kind

    def check(self, state: State, seat: str, orders: BaseModel) -> None:
        kind = self._expect(state, seat, orders)
        steps = _orders_list(orders)
        if kind == "turn":
            play_turn(state.copy(), seat, steps, None)
        elif kind == "company":
            step = steps[0]
            assert isinstance(step, Company)
            check_company(state, seat, step.company)

    def resolve(self, state: State, orders: Mapping[str, BaseModel], chance: Chance) -> Resolution:
        pend = self.pending(state)
        missing = [seat for seat in pend if seat not in orders]
        if missing:
            raise RulesError(
                "decision.missing_orders", T_("orders still due from {seats}", seats=", ".join(missing))
            )
        for seat, given in orders.items():
            self._expect(state, seat, given)
        new = state.copy()
        events: list[Event] = []
        if state.phase == "port":
            seat = state.active
            step = _orders_list(orders[seat])[0]
            assert isinstance(step, PortChoice)
            place_first_ship(new, seat, step.port, events)
        elif state.phase == "turn":
            seat = state.active
            play_turn(new, seat, _orders_list(orders[seat]), events)
            if not events:
                events.append(Event(T_("{seat} took no action", seat=seat)))
            after_turn(new, chance, events)
        else:
            choices = {}
            for seat in state.order:
                step = _orders_list(orders[seat])[0]
                assert isinstance(step, Company)
                choices[seat] = step.company
            resolve_company(new, choices, chance, events)
        return Resolution(new, events)

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        return view(state, seat)

    def table_inputs(self, view: Mapping[str, Any]) -> Mapping[str, Any]:
        return table_inputs(view)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state) if state.phase == "over" else None

    def bot(self, state: State, seat: str, chance: Chance) -> Any:
        return _bot.choose(state, seat, chance)

    def template(self, state: State, seat: str) -> str:
        return _template.template(state, seat)

    def dump_state(self, state: State) -> dict[str, Any]:
        return dump_state(state)

    def load_state(self, data: dict[str, Any]) -> State:
        return load_state(data)

    def resample_hidden(self, state: State, seat: str, chance: Chance) -> State:
        return resample_hidden(state, seat, chance)

    def candidates(self, state: State, seat: str, chance: Chance, limit: int) -> list[Any]:
        return _standin.candidates(state, seat, chance, limit)

    def evaluate(self, state: State, seat: str) -> float:
        return _standin.evaluate(state, seat)

    def next_steps(self, state: State, seat: str, chosen: Sequence[Any]) -> NextSteps:
        return _guide.next_steps(self, state, seat, chosen)


GAME = MareBalticum()
