"""Orders by clicking: the steps the rules allow a seat next, given the steps it has chosen.

:func:`next_steps` replays the chosen steps through the same :func:`~.rules.play_turn` that ``check``
uses (so an illegal start raises the very error ``check`` raises) and then lists what may follow, each
choice a whole step as an order file writes it. The lists are legal by construction; the property
tests in ``tests/mare_balticum/test_mare_guide.py`` replay every choice through ``check``.

Everything here reads the seat's own holdings and the public board only. One step of a turn depends
on a secret: which card a ``contract`` step takes from the face-down pile. So after a contract step
no second one is offered (it could only hand the card just chosen back for one ranked lower).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations, product
from typing import Any

from pbem.core.game import NextSteps, StepChoice
from pbem.core.i18n import T_

from .board import AMBER, BOARD, COMPONENTS, FISH, GOODS, PORTS
from .bot import contract_ranking, legal_sails, sail_step
from .orders import TURN_STEPS, order_model
from .rules import play_turn
from .seasons import tax_due, tax_written
from .state import State, total
from .words import counted_list, goods, listed

JSON = Any


def next_steps(game: Any, state: State, seat: str, chosen: Sequence[JSON]) -> NextSteps:
    """``StepGuide.next_steps`` for Mare Balticum (``game`` checks pending decisions and steps)."""
    kind = game.expect_pending(state, seat)
    chosen = list(chosen)
    if kind in ("port", "company"):
        # one step makes these orders; an empty list lacks it (no rule broken yet)
        if chosen:
            game.check(state, seat, order_model_for(game, state, seat).model_validate(chosen))
            return NextSteps(choices=(), complete=True)
        choices = port_choices(state) if kind == "port" else company_choices(state, seat)
        return NextSteps(choices=tuple(choices), complete=False)
    model = order_model_for(game, state, seat).model_validate(chosen)
    game.check(state, seat, model)  # the error check raises, as it raises it
    work = state.copy()
    play_turn(work, seat, list(model.root), None)
    actions = sum(1 for step in chosen if "discard" not in step)
    contracted = any("contract" in step for step in chosen)
    room = len(chosen) < TURN_STEPS
    choices = list(turn_choices(work, seat, actions, contracted)) if room else []
    return NextSteps(choices=tuple(choices), complete=True)


def order_model_for(game: Any, state: State, seat: str) -> Any:
    return order_model(game.pending(state)[seat])


# ------------------------------------------------------------------------------------------ port, company


def port_choices(state: State) -> Iterator[StepChoice]:
    for port in PORTS:
        sharing = state.ships_on(port)
        label = (
            T_("put your first ship into {port} (shared with {seats})", port=port, seats=listed(sharing))
            if sharing
            else T_("put your first ship into {port}", port=port)
        )
        yield StepChoice(step={"port": port}, keyword="port", label=label)


def company_choices(state: State, seat: str) -> Iterator[StepChoice]:
    player = state.players[seat]
    for token in player.tokens:
        if token == "tax":
            continue
        for fish in FISH:
            if fish not in player.market:
                yield StepChoice(
                    step={"company": {"token": token, "fish": fish}},
                    keyword="company",
                    label=T_("put your {token} token on the {fish} slot", token=token, fish=goods(fish)),
                )
    if "tax" not in player.tokens:
        return
    have = total(player.hold) + total(player.warehouse)
    if len(player.tokens) > 1 and have < 2:
        return  # the rules: tax needs two goods unless it is the last token
    for hold_part, warehouse_part in tax_splits(player.hold, player.warehouse, tax_due(state, seat)):
        yield StepChoice(
            step={
                "company": {"token": "tax", "discard": tax_written(player.hold, hold_part, warehouse_part)}
            },
            keyword="company",
            label=_tax_label(hold_part, warehouse_part),
        )


def tax_splits(
    hold: dict[str, int], warehouse: dict[str, int], due: int
) -> Iterator[tuple[list[str], list[str]]]:
    """Every distinct way to pay ``due`` goods: (from the hold, from the warehouse), each in goods order."""
    places = [("hold", k) for k in FISH if hold.get(k)] + [
        ("warehouse", k) for k in GOODS if warehouse.get(k)
    ]
    for counts in _multisets(places, due, lambda p: (hold if p[0] == "hold" else warehouse)[p[1]]):
        from_hold = [k for (where, k), n in counts for _ in range(n) if where == "hold"]
        from_warehouse = [k for (where, k), n in counts for _ in range(n) if where == "warehouse"]
        yield from_hold, from_warehouse


def _multisets(items: list[Any], size: int, limit: Any) -> Iterator[list[tuple[Any, int]]]:
    """Every multiset of ``size`` drawn from ``items`` (at most ``limit(item)`` of each), in item order."""
    if size == 0:
        yield []
        return
    if not items:
        return
    head, rest = items[0], items[1:]
    for n in range(min(size, limit(head)), -1, -1):
        for tail in _multisets(rest, size - n, limit):
            yield ([(head, n)] if n else []) + tail


def _tax_label(from_hold: list[str], from_warehouse: list[str]) -> str:
    if not from_hold and not from_warehouse:
        return T_("play the tax token (you have no goods to discard)")
    if not from_warehouse:
        return T_("play the tax token: discard {hold} from the hold", hold=counted_list(from_hold, FISH))
    if not from_hold:
        return T_(
            "play the tax token: discard {warehouse} from the warehouse",
            warehouse=counted_list(from_warehouse, GOODS),
        )
    return T_(
        "play the tax token: discard {hold} from the hold and {warehouse} from the warehouse",
        hold=counted_list(from_hold, FISH),
        warehouse=counted_list(from_warehouse, GOODS),
    )


# ------------------------------------------------------------------------------------------------ a turn


def turn_choices(state: State, seat: str, actions: int, contracted: bool) -> Iterator[StepChoice]:
    """What may follow in ``state`` (the turn so far carried out) after ``actions`` actions."""
    player = state.players[seat]
    if actions < COMPONENTS.actions_per_turn:
        yield from _sails(state, seat)
        yield from _fishing(state, seat)
        for port in player.ships:
            if port in BOARD.ports:
                yield from _unloads(state, seat, port)
        if state.options["contracts"] and not contracted:
            yield from _contracts(state, seat)
    for fish in _sub_multisets(player.hold):
        yield StepChoice(
            step={"discard": fish},
            keyword="discard",
            label=T_("discard {fish} from the hold (free, not an action)", fish=counted_list(fish, FISH)),
        )


def _sails(state: State, seat: str) -> Iterator[StepChoice]:
    for origin, to in legal_sails(state, seat):
        label = (
            T_("sail a new ship to {to}", to=to)
            if origin is None
            else T_("sail your ship from {origin} to {to}", origin=origin, to=to)
        )
        yield StepChoice(step=sail_step(origin, to), keyword="sail", label=label)


def _fishing(state: State, seat: str) -> Iterator[StepChoice]:
    player = state.players[seat]
    full = total(player.hold) >= COMPONENTS.hold_limit
    for at in player.ships:
        for kind in GOODS:
            if not state.board.get(at, {}).get(kind) or (full and kind != AMBER):
                continue
            label = (
                T_("fish {goods} at {at} (into the warehouse)", goods=goods(kind), at=at)
                if kind == AMBER
                else T_("fish {goods} at {at} (into the hold)", goods=goods(kind), at=at)
            )
            yield StepChoice(step={"fish": {"at": at, "goods": kind}}, keyword="fish", label=label)


def _unloads(state: State, seat: str, port: str) -> Iterator[StepChoice]:
    """Every distinct unloading at ``port``: which fish, how many of each, and in variant 1 which kinds
    get new demand tokens on which slots (the order of first mention decides that)."""
    hold = state.players[seat].hold
    slots = state.demand[port]
    marks = BOARD.ports[port].slots
    placed_mode = state.options["demand"] == "placed"
    free = [i for i, held in enumerate(slots) if held is None]
    kept = [k for k in FISH if hold.get(k) and k in slots]
    new_ok = [k for k in FISH if hold.get(k) and k not in slots and state.demand_supply.get(k)]
    new_sets: list[tuple[str, ...]] = [()]
    if placed_mode:
        new_sets += [tuple(p) for r in range(1, len(free) + 1) for p in permutations(new_ok, r)]
    for new in new_sets:
        slot_choices: list[int | None] = [None]
        if new:
            slot_choices = []
            for first in free:
                order = [first] + [i for i in free if i != first]
                # the -1 slot takes a new token only when the hold holds two or more of that fish
                if all(marks[i] != -1 or hold[k] >= 2 for k, i in zip(new, order, strict=False)):
                    slot_choices.append(marks[first])
        for slot in slot_choices:
            for counts in _kept_counts(hold, kept):
                if new or counts:
                    yield from _unload_choices(port, new, counts, slot, hold)


def _kept_counts(hold: dict[str, int], kept: list[str]) -> Iterator[list[tuple[str, int]]]:
    for ns in product(*(range(hold[k], -1, -1) for k in kept)):
        yield [(k, n) for k, n in zip(kept, ns, strict=True) if n]


def _unload_choices(
    port: str, new: tuple[str, ...], counts: list[tuple[str, int]], slot: int | None, hold: dict[str, int]
) -> Iterator[StepChoice]:
    """One unloading's choices: each new kind's whole catch or less of it (variant 1), then the rest."""
    for new_ns in product(*(range(hold[k], 0, -1) for k in new)):
        fish = [k for k, n in zip(new, new_ns, strict=True) for _ in range(n)]
        fish += [k for k, n in counts for _ in range(n)]
        step: dict[str, Any] = {"port": port, "fish": fish}
        words = counted_list(fish, FISH)
        if slot is None:
            label = T_("unload {goods} at {port}", goods=words, port=port)
        else:
            step["slot"] = slot
            label = T_(
                "unload {goods} at {port} (the {kind} demand token on the {slot} slot)",
                goods=words,
                port=port,
                kind=goods(new[0]),
                slot=slot,
            )
        yield StepChoice(step={"unload": step}, keyword="unload", label=label)


def _contracts(state: State, seat: str) -> Iterator[StepChoice]:
    """One ranking per card to take first, the rest after it in the order the bot would rank them (the
    list names every card the seat does not hold, so one of them is surely in the pile)."""
    ranking = contract_ranking(state, seat)
    for card in ranking:
        cards = [card] + [c for c in ranking if c != card]
        yield StepChoice(
            step={"contract": cards},
            keyword="contract",
            label=T_(
                "take a contract card: card {card} ({goods}) if it is in the pile, else the first there of "
                "{rest}",
                card=card,
                goods=counted_list(COMPONENTS.contracts[card - 1], GOODS),
                rest=listed([str(c) for c in cards[1:]]),
            ),
        )


def _sub_multisets(goods_held: dict[str, int]) -> Iterator[list[str]]:
    kinds = [k for k in FISH if goods_held.get(k)]
    for ns in product(*(range(goods_held[k], -1, -1) for k in kinds)):
        fish = [k for k, n in zip(kinds, ns, strict=True) for _ in range(n)]
        if fish:
            yield fish
