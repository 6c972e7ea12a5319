"""The :class:`pbem.core.game.Game` of Reef Encounter: the host's one entry point into these rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from pbem.core.game import (
    JSON,
    Chance,
    Decision,
    Event,
    GameError,
    NextSteps,
    Outcome,
    Resolution,
    RulesError,
)
from pbem.core.i18n import N_, P_, T_, Text, listed
from pbem.core.search import BUDGETS

from . import orders as o
from .bot import bot_orders
from .data import CORAL_COLOURS
from .guide import next_steps
from .scoring import outcome
from .setup import new_game, resolve_setup, setup_problem, turn_order
from .standin import candidates, evaluate
from .state import State, dump, load
from .turn import NoChance, TurnRunner, final_feeding
from .view import table_inputs, view


class Options(BaseModel):
    """``advanced``: no extra growth, feeding returns one more polyp. ``starting_player``: a seat, or
    ``None`` to draw one by chance."""

    model_config = ConfigDict(extra="forbid")

    advanced: bool = False
    starting_player: str | None = None


SETUP = Decision(
    "setup", N_("Setup: put one of your polyps into your parrotfish and choose two larva cubes.")
)
TURN = Decision(
    "turn", N_("Your turn: actions 1-9 in any legal order, then take from the open sea (action 10).")
)
FINAL = Decision("final_feeding", N_("Your final feeding turn: feed one coral to your parrotfish, or pass."))
#: orders of the wrong shape, one sentence per decision (the English as "these are not {kind} orders")
_NOT_ORDERS = {
    "setup": N_("these are not setup orders: {problem}"),
    "turn": N_("these are not turn orders: {problem}"),
    "final_feeding": N_("these are not final_feeding orders: {problem}"),
}


class ReefEncounter:
    name = "reef-encounter"
    #: the title as each language's rulebook gives it (Korallkaland, 珊瑚礁大战): the glossary's word
    title = P_("game", "Reef Encounter")
    version = "1.0.0"
    min_players = 2
    max_players = 4
    options_model = Options
    #: how hard the stand-in's levels search: the common budgets, measured here too (BENCHMARKS.md)
    budgets = BUDGETS

    def setup(self, seats: Sequence[str], options: BaseModel, chance: Chance) -> State:
        if not self.min_players <= len(seats) <= self.max_players or len(set(seats)) != len(seats):
            raise GameError("setup.seats", T_("Reef Encounter needs 2 to 4 seats with distinct names"))
        opts = options if isinstance(options, Options) else Options.model_validate(options.model_dump())
        return new_game(seats, opts.advanced, opts.starting_player, chance)

    def pending(self, state: State) -> dict[str, Decision]:
        if state.phase == "setup":
            return dict.fromkeys(state.seats, SETUP)
        if state.phase == "play":
            return {state.active: TURN}
        if state.phase == "final":
            return {state.active: FINAL}
        return {}

    def order_model(self, decision: Decision) -> type[BaseModel]:
        models = {"setup": o.SetupOrders, "turn": o.TurnOrders, "final_feeding": o.FinalFeedingOrders}
        return models[decision.kind]

    def _steps(self, state: State, seat: str, orders: Any) -> tuple[str, list[o.Step]]:
        decision = self.pending(state).get(seat)
        if decision is None:
            raise RulesError("turn.not_pending", T_("no orders are due from {seat} now", seat=seat))
        model = self.order_model(decision)
        if not isinstance(orders, model):
            raw = orders.model_dump(mode="json", by_alias=True) if isinstance(orders, BaseModel) else orders
            try:
                orders = model.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise RulesError(
                    "orders.shape",
                    T_(_NOT_ORDERS[decision.kind], problem=first["msg"]),
                    action=decision.kind,
                ) from None
        return decision.kind, list(orders.root)

    def _play(self, state: State, seat: str, orders: Any, chance: Chance) -> tuple[State, list[Event]]:
        """Carry out ``seat``'s orders on a copy of ``state``; raises :class:`RulesError`."""
        kind, steps = self._steps(state, seat, orders)
        new = state.clone()
        if kind == "setup":
            setup_problem(new, seat, steps[0])
            return new, []
        if kind == "final_feeding":
            events = final_feeding(new, seat, steps[0])
            self._next_final(new)
            return new, events
        runner = TurnRunner(new, seat, chance)
        runner.run(steps)
        events = runner.events
        if runner.ended:
            new.end_reason = runner.ended
            if runner.final_turns:
                new.final_queue = turn_order(new.seats, seat)[1:]
                events.append(Event(_ends(runner.ended, seat, final_turns=True)))
                self._next_final(new)
            else:
                new.phase = "over"
                events.append(Event(_ends(runner.ended, seat, final_turns=False)))
            unplayed = runner.unplayed_event()
            if unplayed is not None:
                events.append(unplayed)
        else:
            new.active = new.next_seat(seat)
        return new, events

    def _next_final(self, state: State) -> None:
        if state.final_queue:
            state.phase = "final"
            state.active = state.final_queue.pop(0)
        else:
            state.phase = "over"
            state.active = ""

    def check(self, state: State, seat: str, orders: BaseModel) -> None:
        self._play(state, seat, orders, NoChance())

    def resolve(self, state: State, orders: Mapping[str, BaseModel], chance: Chance) -> Resolution:
        pend = self.pending(state)
        missing = sorted(set(pend) - set(orders))
        if missing:
            raise RulesError(
                "turn.missing_orders", T_("orders still due from {seats}", seats=listed(missing))
            )
        if state.phase == "setup":
            new = state.clone()
            chosen = {}
            for seat in state.seats:
                _, steps = self._steps(state, seat, orders[seat])
                setup_problem(new, seat, steps[0])
                chosen[seat] = steps[0]
            events = resolve_setup(new, chosen)
        else:
            (seat,) = pend
            new, events = self._play(state, seat, orders[seat], chance)
        new.turn = state.turn + 1
        return Resolution(new, events)

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        return view(state, seat)

    def table_inputs(self, view: Mapping[str, Any]) -> Mapping[str, Any]:
        return table_inputs(view)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def next_steps(self, state: State, seat: str, chosen: Sequence[JSON]) -> NextSteps:
        return next_steps(self, state, seat, chosen)

    def candidates(self, state: State, seat: str, chance: Chance, limit: int) -> list[JSON]:
        return candidates(self, state, seat, chance, limit)

    def evaluate(self, state: State, seat: str) -> float:
        return evaluate(state, seat)

    def bot(self, state: State, seat: str, chance: Chance) -> Any:
        return bot_orders(self, state, seat, chance)

    def template(self, state: State, seat: str) -> str:
        from .template import template

        return template(state, seat)

    def dump_state(self, state: State) -> Any:
        return dump(state)

    def load_state(self, data: Any) -> State:
        return load(data)

    def resample_hidden(self, state: State, seat: str, chance: Chance) -> State:
        """Deal anew the other seats' screens and parrotfish and the bag, keeping every size."""
        new = state.clone()
        if state.phase == "over":
            return new  # the end reveals every holding: nothing is hidden any more
        others = [s for s in state.seats if s != seat]
        pool: list[str] = [c for c in CORAL_COLOURS for _ in range(new.bag[c])]
        larvae: list[str] = []
        for s in others:
            p = new.players[s]
            pool += [c for c in CORAL_COLOURS for _ in range(p.screen[c] + p.parrotfish[c])]
            larvae += [c for c in CORAL_COLOURS for _ in range(p.larvae[c])]
        # dealt from a canonical order: the real arrangement must not steer the deal (a search that
        # resamples would otherwise see a trace of the secrets through the same draws)
        pool = _deal(chance, "resample polyps", sorted(pool, key=CORAL_COLOURS.index))
        larvae = _deal(chance, "resample larvae", sorted(larvae, key=CORAL_COLOURS.index))
        for s in others:
            p = new.players[s]
            for holding in (p.screen, p.parrotfish):
                n = sum(holding.values())
                for c in CORAL_COLOURS:
                    holding[c] = 0
                for c in pool[:n]:
                    holding[c] += 1
                pool = pool[n:]
            n = sum(p.larvae.values())
            p.larvae = dict.fromkeys(CORAL_COLOURS, 0)
            for c in larvae[:n]:
                p.larvae[c] += 1
            larvae = larvae[n:]
        new.bag = dict.fromkeys(CORAL_COLOURS, 0)
        for c in pool:
            new.bag[c] += 1
        return new


GAME = ReefEncounter()


def _deal(chance: Chance, label: str, items: list[str]) -> list[str]:
    """``items`` shuffled (Fisher-Yates) by plain picks: a resample is never replayed from a record, so
    it needs no faces, and asking the chance whether it reads faces costs a search more than the deal."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = chance.pick(label, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


#: each way the game ends (the runner's ``ended``), as whole sentences for the translators: (the game
#: over at once, the others still feeding); the English is the same as "the game ends: {why}" was
_ENDINGS: dict[str, tuple[str, str]] = {
    "no polyp can be placed anywhere": (
        N_("the game ends: no polyp can be placed anywhere"),
        N_("the game ends: no polyp can be placed anywhere; the others get a final feeding turn"),
    ),
    "every coral tile is locked by an alga": (
        N_("the game ends: every coral tile is locked by an alga"),
        N_("the game ends: every coral tile is locked by an alga; the others get a final feeding turn"),
    ),
    "the open sea could not be refilled or the bag holds fewer than 3 polyps": (
        N_("the game ends: the open sea could not be refilled or the bag holds fewer than 3 polyps"),
        N_(
            "the game ends: the open sea could not be refilled or the bag holds fewer than 3 polyps; "
            "the others get a final feeding turn"
        ),
    ),
}


def _ends(why: str, seat: str, *, final_turns: bool) -> Text:
    """The event that ends the game, one whole sentence per reason (same English as ever)."""
    if why in _ENDINGS:
        return T_(_ENDINGS[why][final_turns])
    if why == f"{seat} fed their fourth coral":
        if final_turns:
            return T_(
                "the game ends: {seat} fed their fourth coral; the others get a final feeding turn", seat=seat
            )
        return T_("the game ends: {seat} fed their fourth coral", seat=seat)
    # a reason not listed above: still said, its words in English
    if final_turns:
        return T_("the game ends: {why}; the others get a final feeding turn", why=why)
    return T_("the game ends: {why}", why=why)
