"""The state of a game of Mare Balticum: plain dataclasses, dumped to JSON-compatible data.

Multisets of goods are ``{kind: count}`` dicts without zero entries. Order carries meaning only in
``order`` (turn order from the starting player), ``demand`` slots and the contract ``pile``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from .board import COMPONENTS

Goods = dict[str, int]


def add(goods: Goods, kind: str, n: int = 1) -> None:
    """Add ``n`` of ``kind`` (negative to take), keeping no zero entries."""
    left = goods.get(kind, 0) + n
    if left < 0:
        raise ValueError(f"no {kind} left to take")
    if left:
        goods[kind] = left
    else:
        goods.pop(kind, None)


def total(goods: Goods) -> int:
    return sum(goods.values())


def as_list(goods: Goods, order: tuple[str, ...]) -> list[str]:
    """The multiset as a list, in ``order``: ``{cod: 2}`` -> ``[cod, cod]``."""
    return [kind for kind in order for _ in range(goods.get(kind, 0))]


@dataclass
class Player:
    seat: str
    colour: str
    #: spaces holding this player's ships, in board order (a player never has two on one space)
    ships: list[str]
    supply: int
    hold: Goods = field(default_factory=dict)
    warehouse: Goods = field(default_factory=dict)
    #: fish -> company token placed on its market slot (secret until the end)
    market: dict[str, str] = field(default_factory=dict)
    #: company tokens not yet played, in the order x3, x2, x1, x0, tax
    tokens: list[str] = field(default_factory=lambda: list(COMPONENTS.company_tokens))
    tax_paid: bool = False
    #: goods this player discarded from the warehouse to pay tax (kinds secret, count public)
    taxed: Goods = field(default_factory=dict)
    #: the contract card held (1-based card number), variant 2
    contract: int | None = None
    #: the cards that were in the pile when this player last took a contract (their own knowledge)
    pile_seen: list[int] = field(default_factory=list)

    def copy(self) -> Player:
        return replace(
            self,
            ships=list(self.ships),
            hold=dict(self.hold),
            warehouse=dict(self.warehouse),
            market=dict(self.market),
            tokens=list(self.tokens),
            taxed=dict(self.taxed),
            pile_seen=list(self.pile_seen),
        )


@dataclass
class State:
    seats: list[str]
    #: options as plain data: demand (fixed|placed), contracts (bool), starting_player
    options: dict[str, Any]
    #: seats in turn order, the starting player first
    order: list[str]
    players: dict[str, Player]
    #: goods on each sea area (every area has an entry, maybe empty)
    board: dict[str, Goods]
    #: port -> its demand slots in the board's slot order (0, then -1); None = free
    demand: dict[str, list[str | None]]
    #: demand tokens not yet on the board (variant 1)
    demand_supply: Goods
    #: the bag: goods and undrawn time tokens (``time``)
    bag: Goods
    time_track: int = 0
    #: goods out of the game whose kinds everyone saw (hold discards, -1 losses)
    discarded: Goods = field(default_factory=dict)
    #: face-down contract cards (card numbers), top first
    pile: list[int] = field(default_factory=list)
    #: port (setup) | turn | company | over
    phase: str = "port"
    #: how many players have placed their starting ship (port phase)
    placed: int = 0
    #: how many turns have been completed
    turns_done: int = 0
    #: where a refill paused for a company decision: area index and goods still owed to that area
    refill_at: int | None = None
    refill_owed: int = 0
    #: the turn count after which the game ends, once the sixth time token is out
    end_after: int | None = None

    def copy(self) -> State:
        return replace(
            self,
            seats=list(self.seats),
            options=dict(self.options),
            order=list(self.order),
            players={s: p.copy() for s, p in self.players.items()},
            board={a: dict(g) for a, g in self.board.items()},
            demand={p: list(s) for p, s in self.demand.items()},
            demand_supply=dict(self.demand_supply),
            bag=dict(self.bag),
            discarded=dict(self.discarded),
            pile=list(self.pile),
        )

    @property
    def active(self) -> str:
        """The seat whose turn it is (or who places a ship next, in the port phase)."""
        n = len(self.order)
        return self.order[(self.placed if self.phase == "port" else self.turns_done) % n]

    def ships_on(self, space: str) -> list[str]:
        """Seats with a ship on ``space``, in turn order."""
        return [s for s in self.order if space in self.players[s].ships]


def _sorted_goods(goods: Goods) -> Goods:
    return {k: goods[k] for k in sorted(goods) if goods[k]}


def dump_state(state: State) -> dict[str, Any]:
    """JSON-compatible, deterministic: maps sorted, lists in their meaningful order."""
    out: dict[str, Any] = {}
    for f in fields(State):
        value = getattr(state, f.name)
        if f.name == "players":
            value = {
                seat: {
                    **{pf.name: getattr(p, pf.name) for pf in fields(Player)},
                    "hold": _sorted_goods(p.hold),
                    "warehouse": _sorted_goods(p.warehouse),
                    "market": dict(sorted(p.market.items())),
                    "taxed": _sorted_goods(p.taxed),
                    "ships": list(p.ships),
                    "tokens": list(p.tokens),
                    "pile_seen": list(p.pile_seen),
                }
                for seat, p in sorted(value.items())
            }
        elif f.name == "board":
            value = {a: _sorted_goods(g) for a, g in sorted(value.items())}
        elif f.name == "demand":
            value = {p: list(s) for p, s in sorted(value.items())}
        elif f.name in ("demand_supply", "bag", "discarded"):
            value = _sorted_goods(value)
        elif f.name == "options":
            value = dict(sorted(value.items()))
        elif isinstance(value, list):
            value = list(value)
        out[f.name] = value
    return out


def load_state(data: dict[str, Any]) -> State:
    """The inverse of :func:`dump_state`."""
    players = {
        seat: Player(
            **{
                **p,
                "ships": list(p["ships"]),
                "hold": dict(p["hold"]),
                "warehouse": dict(p["warehouse"]),
                "market": dict(p["market"]),
                "tokens": list(p["tokens"]),
                "taxed": dict(p["taxed"]),
                # states saved before the ranked contract choice have none
                "pile_seen": list(p.get("pile_seen", [])),
            }
        )
        for seat, p in data["players"].items()
    }
    kwargs = {f.name: data[f.name] for f in fields(State)}
    kwargs.update(
        seats=list(data["seats"]),
        options=dict(data["options"]),
        order=list(data["order"]),
        players=players,
        board={a: dict(g) for a, g in data["board"].items()},
        demand={p: list(s) for p, s in data["demand"].items()},
        demand_supply=dict(data["demand_supply"]),
        bag=dict(data["bag"]),
        discarded=dict(data["discarded"]),
        pile=list(data["pile"]),
    )
    return State(**kwargs)
