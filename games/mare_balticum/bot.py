"""A bot that plays every decision legally and sensibly.

It fishes what its company tokens make valuable (amber is always worth 1), unloads where ports take
its fish, sails towards the best goods, and places its highest company tokens on the fish it holds
most of, paying tax when it is cheap. Every turn it builds is replayed through the rules as it goes,
so it is legal by construction.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.core.game import Chance

from .board import ADJACENT, AMBER, AREAS, BOARD, COMPONENTS, FISH, GOODS, PORTS
from .orders import Contract, Discard, Fish, Sail, Unload
from .rules import fleet_breaks, play_turn
from .seasons import tax_due, tax_written
from .state import State, total

#: a fish in the hold is worth less than one in the warehouse: it still has to be unloaded
HOLD_RISK = 0.7
SPACES = (*AREAS, *PORTS)
#: the most the bot's two cheapest goods may be worth for it to pay tax now
TAX_CHEAP = 1.5
#: how much a goods token's pull on a sailing ship fades with each step to it
FADE = 0.5
#: the least pull worth an action when nothing can be fished or unloaded now
REPOSITION_MIN = 0.3
#: how far from a starting port goods count, and how their pull fades with each step beyond the first
START_REACH = 4
START_FADE = 0.5
#: how much more a fish counts near a port that takes it
TAKEN_HERE = 0.5
#: ports worth at least this share of the best one are near enough to be drawn among
NEAR_BEST = 0.8
#: what taking a first contract card is worth to the bot, against fishing (about 0.7 to 3 a token)
CONTRACT_WISH = 1.0


def choose(state: State, seat: str, chance: Chance) -> Any:
    """The bot's orders for ``seat``'s pending decision, as plain data."""
    if state.phase == "port":
        return [{"port": _choose_port(state, seat, chance)}]
    if state.phase == "company":
        return [{"company": _choose_company(state, seat)}]
    if state.phase == "turn":
        return _choose_turn(state, seat)
    raise ValueError("the game is over; nothing to choose")


def fish_values(state: State, seat: str) -> dict[str, float]:
    """What each goods kind is worth to ``seat`` at the end: its company token, or for a fish whose
    slot is still free the mean of the number tokens left (0 if it can never be unloaded)."""
    player = state.players[seat]
    left = [COMPONENTS.token_values[t] for t in player.tokens if t != "tax"]
    guess = sum(left) / len(left) if left else 0.0
    values: dict[str, float] = {AMBER: 1.0}
    for fish in FISH:
        token = player.market.get(fish)
        values[fish] = float(COMPONENTS.token_values[token]) if token else guess
        if not _can_ever_unload(state, fish):
            values[fish] = 0.0
    return values


def _can_ever_unload(state: State, fish: str) -> bool:
    if any(fish in slots for slots in state.demand.values()):
        return True
    return bool(state.demand_supply.get(fish)) and any(None in slots for slots in state.demand.values())


def _choose_port(state: State, seat: str, chance: Chance) -> str:
    """Every port is weighed (:func:`port_values`); the seed's draw picks among those near the best."""
    worth = port_values(state, seat)
    best = max(worth.values())
    near = sorted((p for p in PORTS if worth[p] >= NEAR_BEST * best), key=lambda p: (-worth[p], p))
    return near[chance.pick("bot port", len(near))]


def port_values(state: State, seat: str) -> dict[str, float]:
    """What starting in each port is worth to ``seat``: the goods within a few steps, fading with the
    distance and shared with the rivals' ships at least as near, and more where the port takes the fish
    found around it (they can be unloaded without sailing away)."""
    values = fish_values(state, seat)
    rivals = [space for s, p in state.players.items() if s != seat for space in p.ships]
    out = {}
    for port in PORTS:
        takes = set(state.demand[port])
        worth = 0.0
        for area in AREAS:
            steps = DISTANCE[port][area]
            goods = state.board[area]
            if steps > START_REACH or not goods:
                continue
            crowd = 1 + sum(DISTANCE[r][area] <= steps for r in rivals)
            here = sum(values[g] * n * (1 + TAKEN_HERE * (g in takes)) for g, n in goods.items())
            worth += here * START_FADE ** (steps - 1) / crowd
        out[port] = worth
    return out


def _choose_company(state: State, seat: str) -> dict[str, Any]:
    player = state.players[seat]
    values = fish_values(state, seat)
    owned = _owned_worth(player.hold, player.warehouse, values)
    have = len(owned)
    numbers = [t for t in player.tokens if t != "tax"]
    if "tax" in player.tokens:
        due = tax_due(state, seat)
        cheap = sorted(owned)[:due]
        # pay while it is cheap, and at the latest with the last number token still in hand
        if not numbers or (have >= 2 and (sum(w for w, _, _ in cheap) <= TAX_CHEAP or len(numbers) == 1)):
            return {"token": "tax", "discard": _tax_discard(player.hold, cheap)}
    # the highest number left (tokens are kept in the order x3, x2, x1, x0) on the best liked slot
    return {"token": numbers[0], "fish": slots_by_appeal(state, seat)[0]}


def slots_by_appeal(state: State, seat: str) -> list[str]:
    """The free market slots, the one a high token suits best first: a fish that can be unloaded, the
    most of it owned (the hold's counting less), the most of it on the board."""
    player = state.players[seat]
    on_board: Counter[str] = Counter()
    for goods in state.board.values():
        on_board.update(goods)

    def appeal(fish: str) -> tuple[bool, float, int, int]:
        mine = player.warehouse.get(fish, 0) + HOLD_RISK * player.hold.get(fish, 0)
        return (_can_ever_unload(state, fish), mine, on_board[fish], -FISH.index(fish))

    return sorted((f for f in FISH if f not in player.market), key=appeal, reverse=True)


def cheapest_tax(state: State, seat: str, due: int) -> list[Any]:
    """The tax's discard list with the ``due`` goods least worth to ``seat``."""
    player = state.players[seat]
    owned = _owned_worth(player.hold, player.warehouse, fish_values(state, seat))
    return _tax_discard(player.hold, sorted(owned)[:due])


def play_steps(state: State, seat: str, steps: list[dict[str, Any]]) -> None:
    """Carry out ``steps`` (plain data) of ``seat``'s turn on ``state``, in place."""
    for step in steps:
        play_turn(state, seat, [_parse(step)], None)


def _owned_worth(
    hold: dict[str, int], warehouse: dict[str, int], values: dict[str, float]
) -> list[tuple[float, str, str]]:
    """Every good owned as (worth, kind, where: hold or warehouse)."""
    owned = [(values[k] * HOLD_RISK, k, "hold") for k, n in hold.items() for _ in range(n)]
    owned += [(values[k], k, "warehouse") for k, n in warehouse.items() for _ in range(n)]
    return owned


def _tax_discard(hold: dict[str, int], paid: list[tuple[float, str, str]]) -> list[Any]:
    """The tax's discard list for these goods, written as the orders form offers it (goods order)."""
    from_hold = [k for k in GOODS for _, kind, where in paid if kind == k and where == "hold"]
    from_warehouse = [k for k in GOODS for _, kind, where in paid if kind == k and where == "warehouse"]
    return tax_written(hold, from_hold, from_warehouse)


# ------------------------------------------------------------------------------------------------ turns


def _choose_turn(state: State, seat: str) -> list[dict[str, Any]]:
    return turn_from(state, seat, [], None)


def turn_from(
    state: State, seat: str, done: list[dict[str, Any]], plan: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """A whole turn: the steps ``done`` already, then ``plan`` (if given), then the best plans after."""
    work = state.copy()
    steps = [*done, *(plan or [])]
    play_steps(work, seat, steps)
    actions = sum("discard" not in step for step in steps)
    while actions < COMPONENTS.actions_per_turn:
        found = _best_plan(work, seat, COMPONENTS.actions_per_turn - actions)
        if found is None:
            break
        play_steps(work, seat, found)
        steps += found
        actions += sum("discard" not in step for step in found)
    return steps


def contract_ranking(state: State, seat: str) -> list[int]:
    """Every card but the bot's own, best first: the most of its goods the bot already has (hold and
    warehouse, its own knowledge only), then the lower number. Naming them all always satisfies the
    rule that the list name more cards than the others hold."""
    player = state.players[seat]
    have = Counter({**player.warehouse})
    have.update(player.hold)

    def fit(card: int) -> int:
        need = Counter(COMPONENTS.contracts[card - 1])
        return sum(min(have[k], n) for k, n in need.items())

    cards = [c for c in range(1, len(COMPONENTS.contracts) + 1) if c != player.contract]
    return sorted(cards, key=lambda c: (-fit(c), c))


def _parse(step: dict[str, Any]) -> Any:
    (keyword,) = step
    models = {"sail": Sail, "fish": Fish, "unload": Unload, "discard": Discard, "contract": Contract}
    return models[keyword].model_validate(step)


def _unload_plan(
    state: State, seat: str, port: str, values: dict[str, float]
) -> tuple[float, dict[str, Any]] | None:
    """The most valuable unloading at ``port`` now (with the demand tokens it may place)."""
    player = state.players[seat]
    slots = state.demand[port]
    marks = BOARD.ports[port].slots
    kept = [k for k in FISH if player.hold.get(k) and k in slots]
    gain = 0.0
    for k in kept:
        lost = 1 if state.options["demand"] == "placed" and marks[slots.index(k)] == -1 else 0
        gain += values[k] * (player.hold[k] - lost)
    new: list[str] = []
    slot: int | None = None
    if state.options["demand"] == "placed":
        free = [marks[i] for i, held in enumerate(slots) if held is None]
        candidates = sorted(
            (k for k in FISH if player.hold.get(k) and k not in slots and state.demand_supply.get(k)),
            key=lambda k: -values[k] * player.hold[k],
        )
        for mark in free:
            for k in candidates:
                if k in new or values[k] <= 0 or (mark == -1 and player.hold[k] < 2):
                    continue
                new.append(k)
                gain += values[k] * (player.hold[k] - (1 if mark == -1 else 0))
                if slot is None:
                    slot = mark
                break
    if not new:
        slot = None
    kinds = new + [k for k in kept if values[k] > 0]
    if not kinds or gain <= 0:
        return None
    unload: dict[str, Any] = {"port": port, "fish": [k for k in kinds for _ in range(player.hold[k])]}
    if slot is not None:
        unload["slot"] = slot
    return gain, {"unload": unload}


def _fish_plan(
    state: State, seat: str, at: str, values: dict[str, float]
) -> tuple[float, list[dict[str, Any]]] | None:
    """The best goods to take at ``at``, with the discard that makes room for a fish if needed."""
    player = state.players[seat]
    # on its last turn a fish taken into the hold can no longer be unloaded: it is worth nothing
    risk = 0.0 if _last_turn(state) else HOLD_RISK
    best: tuple[float, list[dict[str, Any]]] | None = None
    for goods in state.board[at]:
        worth = values[goods] * (1.0 if goods == AMBER else risk)
        steps: list[dict[str, Any]] = []
        if goods != AMBER and total(player.hold) >= COMPONENTS.hold_limit:
            cheapest = min(player.hold, key=lambda k: (values[k], k))
            if values[cheapest] >= values[goods]:
                continue
            worth -= values[cheapest] * HOLD_RISK
            steps.append({"discard": [cheapest]})
        if worth <= 0:
            continue
        steps.append({"fish": {"at": at, "goods": goods}})
        if best is None or worth > best[0]:
            best = (worth, steps)
    return best


def _last_turn(state: State) -> bool:
    return state.end_after is not None and state.end_after - state.turns_done <= len(state.order)


def legal_sails(state: State, seat: str) -> list[tuple[str | None, str]]:
    """Every sail the rules allow ``seat`` now: (the ship's space or ``None`` for a new one, where to)."""
    player = state.players[seat]
    mine = set(player.ships)
    origins: list[str | None] = [None] if player.supply else list(player.ships)
    found = []
    for origin in origins:
        rest = [s for s in player.ships if s != origin]
        for to in SPACES:
            if to in mine:
                continue
            if fleet_breaks([*rest, to], to) is None:
                found.append((origin, to))
    return found


def sail_step(origin: str | None, to: str) -> dict[str, Any]:
    return {"sail": {"to": to} if origin is None else {"from": origin, "to": to}}


def _best_plan(state: State, seat: str, actions_left: int) -> list[dict[str, Any]] | None:
    """The plan (one action, or a sail and what it leads to) with the most gain per action."""
    gainful, repositions = ranked_plans(state, seat, actions_left)
    if gainful:
        return gainful[0][1]
    # a turn never passes idle while some sail pulls at all: ships leaving fished-out areas let
    # refills (and time) go on, so the game always moves towards its end
    first = actions_left == COMPONENTS.actions_per_turn
    if repositions and (repositions[0][0] > REPOSITION_MIN or (first and repositions[0][0] > 0)):
        return repositions[0][1]
    return None


Plan = tuple[float, list[dict[str, Any]]]


def ranked_plans(state: State, seat: str, actions_left: int) -> tuple[list[Plan], list[Plan]]:
    """Every plan that gains now, best gain per action first, and every sail that only repositions,
    best pull first (none while a single action is left and something gains)."""
    player = state.players[seat]
    values = fish_values(state, seat)
    gainful: list[Plan] = []

    def consider(gain: float, steps: list[dict[str, Any]], cost: int) -> None:
        if gain > 0:
            gainful.append((gain / cost, steps))

    for space in player.ships:
        if space in BOARD.ports:
            found = _unload_plan(state, seat, space, values)
            if found:
                consider(found[0], [found[1]], 1)
        else:
            fished = _fish_plan(state, seat, space, values)
            if fished:
                consider(fished[0], fished[1], 1)
    if state.options["contracts"] and player.contract is None and state.pile:
        # a contract card turns four matching goods into 7 points: worth an early action
        consider(CONTRACT_WISH, [{"contract": contract_ranking(state, seat)}], 1)
    repositions: list[Plan] = []
    if actions_left >= 2 or not gainful:
        port_values = {p: (_unload_plan(state, seat, p, values) or (0.0, None))[0] for p in PORTS}
        pulls = _pulls(state, values)
        for origin, to in legal_sails(state, seat):
            sail = sail_step(origin, to)
            # leaving an emptied area lets it be refilled: a small bonus for freeing it
            freed = 0.2 if origin in state.board and not state.board[origin] else 0.0
            if to in BOARD.ports:
                found = _unload_plan(state, seat, to, values)
                gain = found[0] if found else 0.0
                follow = [found[1]] if found else []
            else:
                fished = _fish_plan(state, seat, to, values)
                gain = fished[0] if fished else 0.0
                follow = fished[1] if fished else []
            if gain > 0 and actions_left >= 2:
                consider(gain + freed, [sail, *follow], 2)
            repositions.append((gain + freed + pulls[to] + _port_pull(to, port_values), [sail]))
    # stable sorts: among equals the plan considered first comes first, as the bot always chose it
    gainful.sort(key=lambda plan: -plan[0])
    repositions.sort(key=lambda plan: -plan[0])
    return gainful, repositions


def _pulls(state: State, values: dict[str, float]) -> dict[str, float]:
    """For every space, the best goods within reach, fading with the steps to them: where to sail
    when nothing is in reach now (the space's own goods are counted as a plan already)."""
    tops = [(area, max(values[g] for g in goods)) for area, goods in state.board.items() if goods]
    return {
        space: max(
            (worth * FADE ** DISTANCE[space][area] for area, worth in tops if area != space), default=0.0
        )
        for space in SPACES
    }


def _distances() -> dict[str, dict[str, int]]:
    """Steps between every two spaces (breadth-first over the adjacency)."""
    out: dict[str, dict[str, int]] = {}
    for start in SPACES:
        seen = {start: 0}
        frontier = [start]
        while frontier:
            nxt = []
            for space in frontier:
                for other in ADJACENT[space]:
                    if other not in seen:
                        seen[other] = seen[space] + 1
                        nxt.append(other)
            frontier = nxt
        out[start] = seen
    return out


DISTANCE = _distances()


def _port_pull(space: str, port_values: dict[str, float]) -> float:
    """Half of what a port would take from the hold, fading with the steps to it: fish in the hold
    draw the fleet towards a port that takes them."""
    return max((0.5 * v / (1 + DISTANCE[space][p]) for p, v in port_values.items() if v > 0), default=0.0)
