"""Setup and the active player's turn: sail, fish, unload, contract (actions) and discard (free).

Rules file sections "Setup", "A turn" and "Variants". :func:`play_turn` checks and carries out the
steps one by one on a state it may change (the caller passes a copy), raising :class:`RulesError` at
the first illegal step; the same function serves ``check`` and ``resolve``, so the two always agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NoReturn

from pydantic import BaseModel

from pbem.core.game import Chance, Event, RulesError, choice, draw_from_counts, shuffled
from pbem.core.i18n import T_, separated

from .board import ADJACENT, AMBER, AREAS, BOARD, COMPONENTS, FISH, GOODS, PORTS, TIME
from .orders import Contract, Discard, Fish, Sail, Unload, written
from .state import Player, State, add, total
from .words import counted, counted_list, goods_list, listed
from .words import goods as goods_word

#: every demand slot on the board, in board order: (port, slot index)
SLOTS: tuple[tuple[str, int], ...] = tuple((p, i) for p in PORTS for i in range(len(BOARD.ports[p].slots)))


def _arrangements() -> tuple[tuple[str, ...], ...]:
    """Every distinct way to lay the 8 demand tokens on the 8 slots with no port holding two equal
    tokens. Drawing one of these uniformly is the same as shuffling and redrawing until it holds."""
    found: list[tuple[str, ...]] = []
    left = Counter({fish: COMPONENTS.demand_tokens_per_fish for fish in FISH})

    def extend(prefix: list[str]) -> None:
        if len(prefix) == len(SLOTS):
            found.append(tuple(prefix))
            return
        port, index = SLOTS[len(prefix)]
        for fish in FISH:
            if left[fish] and not (index > 0 and prefix[-1] == fish and SLOTS[len(prefix) - 1][0] == port):
                left[fish] -= 1
                prefix.append(fish)
                extend(prefix)
                prefix.pop()
                left[fish] += 1

    extend([])
    return tuple(found)


DEMAND_ARRANGEMENTS = _arrangements()


def setup(seats: Sequence[str], options: BaseModel, chance: Chance) -> State:
    """Rules "Setup": fill the areas in board order, then time tokens in, demand tokens, contracts."""
    seats = list(seats)
    n = len(seats)
    if n not in COMPONENTS.ships:
        raise RulesError("setup.players", T_("Mare Balticum is for 3 to 5 players, not {n}", n=n))
    if len(set(seats)) != n:
        raise RulesError("setup.seats", T_("every seat needs a name of its own"))
    opts = options.model_dump()
    starting = opts.get("starting_player") or choice(chance, "starting player", seats)
    if starting not in seats:
        raise RulesError(
            "setup.starting_player",
            T_("the starting player {starting!r} is not one of {seats}", starting=starting, seats=seats),
        )
    first = seats.index(starting)
    players = {
        seat: Player(seat=seat, colour=COMPONENTS.colours[i], ships=[], supply=COMPONENTS.ships[n])
        for i, seat in enumerate(seats)
    }
    bag = dict(COMPONENTS.goods)
    board: dict[str, dict[str, int]] = {a: {} for a in AREAS}
    for area in BOARD.areas:
        for _ in range(area.capacity):
            kind = draw_from_counts(chance, "bag", bag)
            add(bag, kind, -1)
            add(board[area.name], kind)
    bag[TIME] = COMPONENTS.time_tokens
    demand: dict[str, list[str | None]] = {p: [None] * len(BOARD.ports[p].slots) for p in PORTS}
    demand_supply: dict[str, int] = {}
    if opts["demand"] == "fixed":
        for (port, index), fish in zip(
            SLOTS, choice(chance, "demand tokens", DEMAND_ARRANGEMENTS, face=" ".join), strict=True
        ):
            demand[port][index] = fish
    else:
        demand_supply = {fish: COMPONENTS.demand_tokens_per_fish for fish in FISH}
    pile = shuffled(chance, "contract cards", range(1, 7)) if opts["contracts"] else []
    return State(
        seats=seats,
        options={**opts, "starting_player": starting},
        order=seats[first:] + seats[:first],
        players=players,
        board=board,
        demand=demand,
        demand_supply=demand_supply,
        bag=bag,
        pile=pile,
    )


def place_first_ship(state: State, seat: str, port: str, events: list[Event]) -> None:
    """Setup step 3: the seat's first ship goes into a port (ports may be shared)."""
    player = state.players[seat]
    player.ships = [port]
    player.supply -= 1
    state.placed += 1
    events.append(Event(T_("{seat} put a first ship into {port}", seat=seat, port=port)))
    if state.placed == len(state.order):
        state.phase = "turn"


def port_marks(port: str) -> tuple[int, ...]:
    return BOARD.ports[port].slots


def fleet_breaks(ships: Sequence[str], moved: str | None = None) -> str | None:
    """The first ship (the moved one first) not adjacent to another of ``ships``, or ``None``.

    Rulings: checked after each sail, ship by ship, not as connectivity of the whole fleet."""
    others = set(ships)
    for space in ([moved] if moved else []) + list(ships):
        if not ADJACENT[space] & others:
            return space
    return None


#: each step as a rules error names it, in the reader's words (the Hungarian rulebook's hajózás,
#: halászat, kirakodás); the order keeps the English keyword, quoted beside it
ACTIONS = {
    "sail": T_("sailing"),
    "fish": T_("fishing"),
    "unload": T_("unloading"),
    "discard": T_("discarding"),
    "contract": T_("taking a contract"),
}


class _Turn:
    """One turn's steps applied in order; ``fail`` raises for the step being applied."""

    def __init__(self, state: State, seat: str, events: list[Event] | None) -> None:
        self.state = state
        self.seat = seat
        self.player = state.players[seat]
        self.events = events
        self.actions = 0
        self.index = 0
        self.step: BaseModel | None = None

    def fail(self, code: str, message: str) -> NoReturn:
        step = self.step
        raise RulesError(
            code,
            message,
            step=self.index,
            action=ACTIONS.get(getattr(step, "keyword", None) or "", getattr(step, "keyword", None)),
            quote=written(step) if step is not None else None,
        )

    def say(self, text: str, to: str | None = None) -> None:
        if self.events is not None:
            self.events.append(Event(text, to=to))

    def run(self, steps: Sequence[BaseModel]) -> None:
        for self.index, self.step in enumerate(steps):
            if not isinstance(self.step, Discard):
                self.actions += 1
                if self.actions > COMPONENTS.actions_per_turn:
                    self.fail("turn.too_many_actions", T_("a turn has at most 3 actions (discards are free)"))
            if isinstance(self.step, Sail):
                self.sail(self.step)
            elif isinstance(self.step, Fish):
                self.fish(self.step)
            elif isinstance(self.step, Unload):
                self.unload(self.step)
            elif isinstance(self.step, Discard):
                self.discard(self.step.discard)
            elif isinstance(self.step, Contract):
                self.contract(self.step.contract)
            else:  # pragma: no cover - the order model admits nothing else
                raise TypeError(f"not a step of a Mare Balticum turn: {self.step!r}")

    def sail(self, step: Sail) -> None:
        to, origin, player = step.sail.to, step.sail.from_, self.player
        if to in player.ships:
            self.fail("sail.own_ship_there", T_("you already have a ship on {to}", to=to))
        if player.supply:
            if origin is not None:
                self.fail(
                    "sail.new_ship_first",
                    T_(
                        "ships still in your supply: {supply}; so a sail puts a new ship on the board: "
                        "write `sail: {{to: {to}}}`",
                        supply=player.supply,
                        to=to,
                    ),
                )
            ships = [*player.ships, to]
        else:
            if origin is None:
                self.fail(
                    "sail.from_needed",
                    T_(
                        "all your ships are on the board: say which one sails, `sail: {{from: ..., to: "
                        "{to}}}`",
                        to=to,
                    ),
                )
            if origin not in player.ships:
                self.fail("sail.no_ship_there", T_("you have no ship on {origin}", origin=origin))
            ships = [s for s in player.ships if s != origin] + [to]
        broken = fleet_breaks(ships, to)
        if broken is not None:
            self.fail(
                "sail.fleet",
                T_(
                    "afterwards your ship on {broken} would have no other ship of yours next to it",
                    broken=broken,
                ),
            )
        player.ships = sorted(ships, key=SPACE_ORDER.__getitem__)
        if origin is None:
            player.supply -= 1
            self.say(T_("{seat} sailed a new ship to {to}", seat=self.seat, to=to))
        else:
            self.say(T_("{seat} sailed from {origin} to {to}", seat=self.seat, origin=origin, to=to))

    def fish(self, step: Fish) -> None:
        at, goods, player = step.fish.at, step.fish.goods, self.player
        if at not in player.ships:
            self.fail("fish.no_ship", T_("you have no ship on {at}", at=at))
        if at in BOARD.ports:
            self.fail("fish.port", T_("{at} is a port; ports hold no goods", at=at))
        if not self.state.board[at].get(goods):
            self.fail("fish.no_goods", T_("there is no {goods} on {at}", goods=goods_word(goods), at=at))
        if goods != AMBER and total(player.hold) >= COMPONENTS.hold_limit:
            held = next(kind for kind in FISH if player.hold.get(kind))
            self.fail(
                "fish.hold_full",
                T_(
                    "your hold is full (5 fish): discard fish first, like `{example}`",
                    example=f"- discard: [{held}]",
                ),
            )
        add(self.state.board[at], goods, -1)
        add(player.warehouse if goods == AMBER else player.hold, goods)
        if goods == AMBER:
            self.say(
                T_(
                    "{seat} fished {goods} at {at} (into the warehouse)",
                    seat=self.seat,
                    goods=goods_word(goods),
                    at=at,
                )
            )
        else:
            self.say(
                T_(
                    "{seat} fished {goods} at {at} (into the hold)",
                    seat=self.seat,
                    goods=goods_word(goods),
                    at=at,
                )
            )

    def unload(self, step: Unload) -> None:
        port, fish, slot = step.unload.port, step.unload.fish, step.unload.slot
        state, player = self.state, self.player
        if port not in BOARD.ports:
            self.fail("unload.not_a_port", T_("{port} is a sea area; unload in a port", port=port))
        if port not in player.ships:
            self.fail("unload.no_ship", T_("you have no ship in {port}", port=port))
        counts = Counter(fish)
        for kind, n in counts.items():
            if player.hold.get(kind, 0) < n:
                self.fail(
                    "unload.not_in_hold",
                    T_(
                        "too few {kind} in your hold: it has {held}, you named {n}",
                        held=player.hold.get(kind, 0),
                        kind=goods_word(kind),
                        n=n,
                    ),
                )
        kinds = list(counts)  # in order of first mention
        slots = state.demand[port]
        marks = port_marks(port)
        placed: list[tuple[str, int]] = []
        placed_mode = state.options["demand"] == "placed"
        if not placed_mode:
            if slot is not None:
                self.fail(
                    "unload.slot_unused", T_("`slot` only matters when ports start empty (demand: placed)")
                )
            for kind in kinds:
                if kind not in slots:
                    self.fail(
                        "unload.not_demanded",
                        T_(
                            "{port} does not take {kind}; it takes {takes}",
                            port=port,
                            kind=goods_word(kind),
                            takes=_names(slots),
                        ),
                    )
        else:
            new = [k for k in kinds if k not in slots]
            if not new and slot is not None:
                self.fail(
                    "unload.slot_unused",
                    T_("no new demand token goes to {port}: leave out `slot`", port=port),
                )
            for kind in new:
                if not state.demand_supply.get(kind):
                    self.fail(
                        "unload.not_demanded",
                        T_(
                            "{port} does not take {kind}, and both {kind} demand tokens lie in other ports",
                            port=port,
                            kind=goods_word(kind),
                        ),
                    )
            free = [i for i, held in enumerate(slots) if held is None]
            if len(new) > len(free):
                self.fail(
                    "unload.no_free_slot",
                    T_(
                        "{port} takes {takes} and has no free slot for {kinds}",
                        port=port,
                        takes=_names(slots),
                        kinds=listed(goods_list(new[len(free) :])),
                    ),
                )
            if slot is not None and new:
                if slot not in marks:
                    self.fail(
                        "unload.no_such_slot",
                        T_(
                            "{port} has no {slot} slot, only {slots}",
                            port=port,
                            slot=slot,
                            slots=listed([str(m) for m in marks]),
                        ),
                    )
                first = marks.index(slot)
                if slots[first] is not None:
                    self.fail(
                        "unload.slot_taken",
                        T_(
                            "the {slot} slot of {port} already holds {token}",
                            slot=slot,
                            port=port,
                            token=goods_word(slots[first] or ""),
                        ),
                    )
                free = [first] + [i for i in free if i != first]
            for kind, index in zip(new, free, strict=False):
                # the rulebook: "if the player's hold holds only 1 fish of that kind" (the hold, not the
                # number unloaded)
                if marks[index] == -1 and player.hold.get(kind, 0) < 2:
                    self.fail(
                        "unload.minus_one_single",
                        T_(
                            "the -1 slot of {port} cannot take {kind} when your hold holds only one {kind}",
                            port=port,
                            kind=goods_word(kind),
                        ),
                    )
                placed.append((kind, index))
        for kind, index in placed:
            slots[index] = kind
            add(state.demand_supply, kind, -1)
            self.say(
                T_(
                    "{seat} put a {kind} demand token on the {slot} slot of {port}",
                    seat=self.seat,
                    kind=goods_word(kind),
                    slot=marks[index],
                    port=port,
                )
            )
        parts = []
        for kind in kinds:
            n = counts[kind]
            # the slot marks count only when ports start empty (variant 1)
            lost = 1 if placed_mode and marks[slots.index(kind)] == -1 else 0
            add(player.hold, kind, -n)
            if n - lost:
                add(player.warehouse, kind, n - lost)
            if lost:
                add(state.discarded, kind, lost)
            parts.append(
                T_("{goods} (one of them lost to the -1 slot)", goods=counted(kind, n))
                if lost
                else counted(kind, n)
            )
        self.say(T_("{seat} unloaded {goods} at {port}", seat=self.seat, goods=listed(parts), port=port))

    def discard(self, fish: Sequence[str]) -> None:
        counts = Counter(fish)
        for kind, n in counts.items():
            if self.player.hold.get(kind, 0) < n:
                rule = T_(
                    "too few {kind} in your hold: it has {held}, you named {n}",
                    held=self.player.hold.get(kind, 0),
                    kind=goods_word(kind),
                    n=n,
                )
                # what to write instead: the fish named, as many of each as the hold has
                kept = [k for k in FISH for _ in range(min(counts[k], self.player.hold.get(k, 0)))]
                example = T_("write `{example}`", example=f"- discard: [{', '.join(kept)}]")
                self.fail("discard.not_in_hold", separated([rule, example]) if kept else rule)
        for kind, n in counts.items():
            add(self.player.hold, kind, -n)
            add(self.state.discarded, kind, n)
        self.say(
            T_(
                "{seat} discarded {fish} from the hold",
                seat=self.seat,
                fish=counted_list(fish, FISH),
            )
        )

    def contract(self, ranking: Sequence[int]) -> None:
        """Rules "A turn", contract: the first card of ``ranking`` still in the pile is taken.

        Whether the orders are legal never depends on the pile (which holds what the others do not):
        the list must name more cards than the other players hold, so one of them is surely there."""
        state, player = self.state, self.player
        if not state.options["contracts"]:
            self.fail("contract.variant_off", T_("this game is played without contracts (option contracts)"))
        repeated = sorted({c for c in ranking if ranking.count(c) > 1})
        if repeated:
            self.fail(
                "contract.repeated", T_("card {card} is named twice; name each card once", card=repeated[0])
            )
        if player.contract in ranking:
            self.fail(
                "contract.own_card",
                T_(
                    "you hold card {card} yourself; list only cards you would take instead",
                    card=player.contract,
                ),
            )
        others = sum(1 for s, p in state.players.items() if s != self.seat and p.contract is not None)
        if len(ranking) <= others:
            self.fail(
                "contract.list_too_short",
                T_(
                    "contract cards the other players hold: {others}; so your list must name at least {k}, "
                    "best first: one of them is then surely in the pile",
                    others=others,
                    k=others + 1,
                ),
            )
        seen = sorted(state.pile)
        card = next(c for c in ranking if c in state.pile)
        state.pile.remove(card)
        if player.contract is not None:
            # the exchanged card goes back afterwards: it was not there to be chosen
            state.pile.append(player.contract)
            self.say(T_("{seat} exchanged their contract card for one from the pile", seat=self.seat))
        else:
            self.say(T_("{seat} took a contract card from the pile", seat=self.seat))
        player.contract = card
        player.pile_seen = seen
        cards = listed([str(c) for c in seen])
        goods = counted_list(COMPONENTS.contracts[card - 1], GOODS)
        self.say(
            T_(
                "the pile held cards {cards}; you took card {card}: {goods}",
                cards=cards,
                card=card,
                goods=goods,
            ),
            to=self.seat,
        )


SPACE_ORDER = {space: i for i, space in enumerate((*AREAS, *PORTS))}


def _names(slots: Sequence[str | None]) -> str:
    taken = [s for s in slots if s]
    return listed(goods_list(taken)) if taken else T_("nothing yet")


def play_turn(state: State, seat: str, steps: Sequence[BaseModel], events: list[Event] | None) -> None:
    """Carry out ``seat``'s turn on ``state`` (changed in place), raising at the first illegal step."""
    _Turn(state, seat, events).run(steps)
