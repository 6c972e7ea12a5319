"""What each seat may see, and hidden holdings dealt anew (rules file, "What each player may see").

Public: board, ships, holds, demand tokens, time track, filled market slots, played tax tokens,
warehouse sizes, who holds a contract, bag size. Own only: company token values, warehouse contents,
the contract card. After the end everything is shown, with each seat's score sheet.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pbem.core.game import Chance, shuffled

from .board import AMBER, AREAS, BOARD, COMPONENTS, FISH, GOODS, PORTS, TIME
from .scoring import score
from .state import State, as_list, total
from .words import colour, goods_list
from .words import goods as goods_word


def _space(state: State, name: str) -> dict[str, Any]:
    seats = state.ships_on(name)
    return {"name": name, "ships": seats, "colours": [state.players[s].colour for s in seats]}


#: what the players' table shows of each player: the counts every seat sees (the warehouse's goods, the
#: market, the company tokens and the contract are a seat's own, shown in its "yours alone")
_TABLE_PLAYER = (
    "colour",
    "ships",
    "supply",
    "hold",
    "warehouse_count",
    "market_filled",
    "tax_played",
    "taxed_from_warehouse",
    "has_contract",
    "score",
)
#: the rest of the view the shared table shows (not ``me``, not the players' own holdings)
_TABLE = (
    "active",
    "areas",
    "bag_size",
    "contract_pile",
    "demand_supply",
    "discarded",
    "goods_kinds",
    "map",
    "options",
    "order",
    "phase",
    "ports",
    "round",
    "starting_player",
    "time_in_bag",
    "time_track",
    "turns_left",
)


def table_inputs(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the report's shared table shows of ``view``: the same for every seat of a turn."""
    inputs = {key: view[key] for key in _TABLE}
    inputs["players"] = {s: {k: p[k] for k in _TABLE_PLAYER} for s, p in view["players"].items()}
    return inputs


def view(state: State, seat: str | None) -> dict[str, Any]:
    """The view for ``seat`` (``None``: an observer); everything once the game is over."""
    over = state.phase == "over"
    areas = []
    for area in BOARD.areas:
        goods = state.board[area.name]
        areas.append(
            {
                **_space(state, area.name),
                "depth": "D" if area.deep else "S",
                "x": area.x,
                "y": area.y,
                "goods": goods_list(as_list(goods, GOODS)),
                "adjacent": sorted(BOARD.adjacent[area.name], key=_order.__getitem__),
            }
        )
    ports = []
    for name, port in BOARD.ports.items():
        ports.append(
            {
                **_space(state, name),
                "x": port.x,
                "y": port.y,
                "slots": [
                    {"mark": m, "fish": goods_word(f) if f else f}
                    for m, f in zip(port.slots, state.demand[name], strict=True)
                ],
                "adjacent": sorted(BOARD.adjacent[name], key=_order.__getitem__),
            }
        )
    players = {}
    for s in state.order:
        p = state.players[s]
        open_ = over or s == seat
        players[s] = {
            "colour": colour(p.colour),
            "ships": list(p.ships),
            "supply": p.supply,
            "hold": goods_list(as_list(p.hold, FISH)),
            "warehouse_count": total(p.warehouse),
            "market_filled": [goods_word(f) for f in FISH if f in p.market],
            "tax_played": p.tax_paid,
            "tokens_left": len(p.tokens),
            "taxed_from_warehouse": total(p.taxed),
            "has_contract": p.contract is not None,
            "warehouse": goods_list(as_list(p.warehouse, GOODS)) if open_ else None,
            "market": {goods_word(f): p.market.get(f) for f in FISH} if open_ else None,
            "tokens": list(p.tokens) if open_ else None,
            "contract": _contract(p.contract) if open_ else None,
            # which cards were in the pile when this player last took a contract: their own knowledge
            "pile_seen": list(p.pile_seen) if open_ else None,
            "score": _sheet(state, s) if over else None,
        }
    waiting: list[str] = []
    if state.phase in ("port", "turn"):
        waiting = [state.active]
    elif state.phase == "company":
        waiting = list(state.order)
    return {
        "colours": {s: colour(state.players[s].colour) for s in state.seats},
        "seats": list(state.seats),
        "order": list(state.order),
        "starting_player": state.order[0],
        "options": dict(state.options),
        "phase": state.phase,
        "active": state.active if state.phase in ("port", "turn") else None,
        "waiting": waiting,
        "turns_done": state.turns_done,
        "round": state.turns_done // len(state.order) + 1,
        "areas": areas,
        "ports": ports,
        "players": players,
        "time_track": state.time_track,
        "time_in_bag": state.bag.get(TIME, 0),
        "bag_size": total(state.bag),
        "discarded": goods_list(as_list(state.discarded, FISH)),
        "demand_supply": goods_list(as_list(state.demand_supply, FISH)),
        "contract_pile": len(state.pile),
        "end_after": state.end_after,
        "turns_left": None if state.end_after is None else max(0, state.end_after - state.turns_done),
        "me": seat,
        # the goods kinds in the reader's words, for a table's headings
        "goods_kinds": goods_list(GOODS),
        "map": copy.deepcopy(MAP),
    }


_order = {space: i for i, space in enumerate((*AREAS, *PORTS))}


def _map() -> dict[str, Any]:
    """The report map's fixed drawing data: canvas size and every adjacency once, as a line."""
    where = {a.name: (a.x, a.y) for a in BOARD.areas} | {p.name: (p.x, p.y) for p in BOARD.ports.values()}
    edges = [
        {"a": a, "b": b, "x1": where[a][0], "y1": where[a][1], "x2": where[b][0], "y2": where[b][1]}
        for a in (*AREAS, *PORTS)
        for b in sorted(BOARD.adjacent[a], key=_order.__getitem__)
        if _order[a] < _order[b]
    ]
    return {"width": 780, "height": 740, "edges": edges}


MAP = _map()


def _sheet(state: State, seat: str) -> dict[str, Any]:
    """``seat``'s score sheet, each line's goods in the reader's words."""
    sheet = score(state, seat)
    sheet["lines"] = [{**line, "goods": goods_word(line["goods"])} for line in sheet["lines"]]
    return sheet


def _contract(card: int | None) -> dict[str, Any] | None:
    if card is None:
        return None
    return {"card": card, "goods": goods_list(COMPONENTS.contracts[card - 1])}


def resample_hidden(state: State, seat: str, chance: Chance) -> State:
    """A state ``seat`` cannot tell from ``state``: other warehouses (and their secret tax discards),
    the bag's goods, other company token values and the unseen contract cards dealt anew, legally.

    Warehouse fish are dealt only from kinds some port takes (a warehouse can hold nothing else).

    The result depends on ``seat``'s view and ``chance`` alone: the hidden goods and cards are sorted
    before they are dealt, so where they really lie (which a shuffle would start from) never shows
    through; a search over these worlds cannot learn a secret from them."""
    new = state.copy()
    if state.phase == "over":
        return new  # everything is revealed at the end: nothing is hidden any more
    others = [s for s in state.order if s != seat]
    pool: list[str] = as_list({k: v for k, v in state.bag.items() if k != TIME}, GOODS)
    for s in others:
        pool += as_list(state.players[s].warehouse, GOODS) + as_list(state.players[s].taxed, GOODS)
    takeable = {f for slots in state.demand.values() for f in slots if f} | {AMBER}
    pool.sort(key=GOODS.index)
    fitting = shuffled(chance, "hidden goods", [g for g in pool if g in takeable])
    bag: dict[str, int] = {TIME: state.bag[TIME]} if state.bag.get(TIME) else {}
    for s in others:
        p = new.players[s]
        for attr in ("warehouse", "taxed"):
            goods: dict[str, int] = {}
            for _ in range(total(getattr(state.players[s], attr))):
                kind = fitting.pop()
                goods[kind] = goods.get(kind, 0) + 1
            setattr(p, attr, goods)
    for kind in fitting + [g for g in pool if g not in takeable]:
        bag[kind] = bag.get(kind, 0) + 1
    new.bag = bag
    numbers = [t for t in COMPONENTS.company_tokens if t != "tax"]
    for s in others:
        p = new.players[s]
        filled = [f for f in FISH if f in p.market]
        values = shuffled(chance, "company tokens", numbers)
        p.market = dict(zip(filled, values, strict=False))
        p.tokens = [t for t in COMPONENTS.company_tokens if t not in p.market.values()]
        if p.tax_paid:
            p.tokens.remove("tax")
    if state.options["contracts"]:
        unseen = list(state.pile) + [state.players[s].contract for s in others if state.players[s].contract]
        unseen = shuffled(chance, "contract cards", sorted(unseen))
        for s in others:
            if new.players[s].contract is not None:
                new.players[s].contract = unseen.pop()
        new.pile = unseen
        for s in others:
            # what another player saw in the pile is theirs alone: any cards of the same number
            seen = state.players[s].pile_seen
            new.players[s].pile_seen = sorted(shuffled(chance, "pile seen", range(1, 7))[: len(seen)])
    return new
