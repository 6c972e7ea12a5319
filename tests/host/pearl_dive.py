"""Pearl Dive: the host's own small test game, so host tests do not depend on a big game's rules.

It has what the host must handle: hidden holdings (each diver's pearls), a simultaneous decision (every
diver bids one pearl at once), a sequential one (the winner alone chooses how to dive), chance (pearls
drawn from a bag, a coin toss for a deep dive) and an end with scores, places and ties.

Rules. Each diver starts with two pearls drawn from the bag (values 1-5). A round: every diver holding
a pearl bids one of them, all at once; the highest bid wins (ties: the earlier seat), the winner scores
the sum of all bids, every bid pearl is spent, and each diver draws one pearl if the bag has any. Then
the winner dives: ``deep`` scores 3 on a coin toss (else 0), ``shallow`` scores 1. After ``rounds``
rounds, or when nobody holds a pearl, the most points win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from pbem.core.game import Chance, Decision, Event, Outcome, Resolution, RulesError, coin, draw_from_counts
from pbem.core.steps import Step, dump_steps, steps_model
from pbem.render.environment import add_template_dir

add_template_dir(Path(__file__).parent / "templates")

COLOURS = ("white", "black", "pink", "gold")
BAG = {"1": 4, "2": 4, "3": 4, "4": 3, "5": 2}


class Options(BaseModel):
    rounds: int = Field(3, ge=1, le=10)


class Bid(Step):
    bid: int


class Dive(Step):
    dive: Literal["deep", "shallow"]


BidOrders = steps_model("BidOrders", Bid, min_steps=1, max_steps=1)
DiveOrders = steps_model("DiveOrders", Dive, min_steps=1, max_steps=1)


class State(BaseModel):
    seats: list[str]
    hands: dict[str, list[int]]
    bag: dict[str, int]
    scores: dict[str, int]
    round: int = 1
    rounds: int = 3
    phase: Literal["bid", "dive", "over"] = "bid"
    diver: str | None = None
    last_bids: dict[str, int] = {}


def _draw(state: State, seat: str, chance: Chance, events: list[Event]) -> None:
    if sum(state.bag.values()) == 0:
        return
    pearl = draw_from_counts(chance, "bag", state.bag)
    state.bag[pearl] -= 1
    state.hands[seat] = sorted([*state.hands[seat], int(pearl)])
    events.append(Event(f"{seat} drew a pearl from the bag"))
    events.append(Event(f"you drew a pearl worth {pearl}", to=seat, data={"pearl": int(pearl)}))


class PearlDive:
    name = "pearl-dive"
    title = "Pearl Dive"
    version = "1"
    min_players = 2
    max_players = 4
    options_model = Options

    def setup(self, seats: Sequence[str], options: BaseModel, chance: Chance) -> State:
        assert isinstance(options, Options)
        state = State(
            seats=list(seats),
            hands={s: [] for s in seats},
            bag=dict(BAG),
            scores={s: 0 for s in seats},
            rounds=options.rounds,
        )
        for _ in range(2):
            for seat in seats:
                _draw(state, seat, chance, [])
        return state

    def pending(self, state: State) -> dict[str, Decision]:
        if state.phase == "bid":
            return {
                s: Decision("bid", "Bid one of your pearls; the highest bid wins them all.")
                for s in state.seats
                if state.hands[s]
            }
        if state.phase == "dive" and state.diver:
            return {state.diver: Decision("dive", "You won the bid: dive deep or shallow.")}
        return {}

    def order_model(self, decision: Decision) -> type[BaseModel]:
        return BidOrders if decision.kind == "bid" else DiveOrders

    def check(self, state: State, seat: str, orders: BaseModel) -> None:
        for index, step in enumerate(orders.root):  # type: ignore[attr-defined]
            if isinstance(step, Bid) and step.bid not in state.hands[seat]:
                raise RulesError(
                    "bid.not_held",
                    f"you hold no pearl worth {step.bid}",
                    step=index,
                    action="bid",
                    quote=step.quote(),
                )

    def resolve(self, state: State, orders: Mapping[str, BaseModel], chance: Chance) -> Resolution:
        new = state.model_copy(deep=True)
        events: list[Event] = []
        if new.phase == "bid":
            bids = {seat: orders[seat].root[0].bid for seat in new.seats if seat in orders}  # type: ignore[attr-defined]
            best = max(bids.values())
            winner = next(seat for seat in new.seats if bids.get(seat) == best)
            for seat, value in bids.items():
                new.hands[seat].remove(value)
            new.scores[winner] += sum(bids.values())
            new.last_bids = bids
            said = ", ".join(f"{seat} {value}" for seat, value in bids.items())
            events.append(Event(f"bids: {said}; {winner} wins {sum(bids.values())} points"))
            for seat in new.seats:
                _draw(new, seat, chance, events)
            new.phase, new.diver = "dive", winner
        else:
            diver = new.diver or ""
            how = orders[diver].root[0].dive  # type: ignore[attr-defined]
            if how == "deep":
                found = coin(chance, "deep dive")
                new.scores[diver] += 3 if found else 0
                events.append(
                    Event(f"{diver} dived deep and " + ("found 3 points" if found else "found nothing"))
                )
            else:
                new.scores[diver] += 1
                events.append(Event(f"{diver} dived shallow for 1 point"))
            new.round += 1
            new.diver = None
            done = new.round > new.rounds or not any(new.hands.values())
            new.phase = "over" if done else "bid"
        return Resolution(new, events)

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        over = state.phase == "over"
        view: dict[str, Any] = {
            "colours": {s: COLOURS[i] for i, s in enumerate(state.seats)},
            "round": state.round,
            "rounds": state.rounds,
            "phase": state.phase,
            "diver": state.diver,
            "scores": dict(state.scores),
            "held": {s: len(h) for s, h in state.hands.items()},
            "bag_size": sum(state.bag.values()),
            "last_bids": dict(state.last_bids),
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        if over:
            view["hands"] = {s: list(h) for s, h in state.hands.items()}
            view["bag"] = dict(state.bag)
        return view

    def table_inputs(self, view: Mapping[str, Any]) -> Mapping[str, Any]:
        return {key: value for key, value in view.items() if key != "hand"}

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        ordered = sorted(set(state.scores.values()), reverse=True)
        places = {s: ordered.index(points) + 1 for s, points in state.scores.items()}
        return Outcome("all rounds are dived", dict(state.scores), places, ("ties share a place",))

    def bot(self, state: State, seat: str, chance: Chance) -> Any:
        if state.phase == "bid":
            return [{"bid": max(state.hands[seat])}]
        return [{"dive": "deep" if coin(chance, "bot mood") else "shallow"}]

    def template(self, state: State, seat: str) -> str:
        if state.phase == "bid":
            held = ", ".join(str(p) for p in state.hands[seat])
            return f"# bid one pearl you hold ({held})\n- bid: {state.hands[seat][0]}\n"
        return "# deep: 3 points on a coin toss; shallow: 1 point\n- dive: shallow\n"

    def dump_state(self, state: State) -> Any:
        return state.model_dump(mode="json")

    def load_state(self, data: Any) -> State:
        return State.model_validate(data)

    def resample_hidden(self, state: State, seat: str, chance: Chance) -> State:
        new = state.model_copy(deep=True)
        pool = dict(new.bag)
        for other in new.seats:
            if other != seat:
                for pearl in new.hands[other]:
                    pool[str(pearl)] = pool.get(str(pearl), 0) + 1
        for other in new.seats:
            if other != seat:
                size = len(new.hands[other])
                new.hands[other] = []
                for _ in range(size):
                    pearl = draw_from_counts(chance, "resample", pool)
                    pool[pearl] -= 1
                    new.hands[other].append(int(pearl))
                new.hands[other].sort()
        new.bag = pool
        return new


GAME = PearlDive()

__all__ = ["GAME", "BidOrders", "DiveOrders", "PearlDive", "State", "dump_steps"]
