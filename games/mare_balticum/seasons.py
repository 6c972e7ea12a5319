"""Refill, time tokens and their company decisions, and the end of the game.

Rules file sections "A turn" (refill), "Time tokens" and "End". A refill that draws a time token
pauses (``State.refill_at``/``refill_owed`` remember where) and asks every player for a company token;
:func:`resolve_company` carries the choices out and resumes the refill.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pbem.core.game import Chance, Event, RulesError, draw_from_counts
from pbem.core.i18n import T_, TN_

from .board import BOARD, COMPONENTS, FISH, GOODS, TIME
from .orders import CompanyChoice, written
from .state import State, add, as_list, total
from .words import counted_list, goods_list, listed, separated
from .words import goods as goods_word


def after_turn(state: State, chance: Chance, events: list[Event]) -> None:
    """A turn is over: end the game if it was the last, else refill."""
    state.turns_done += 1
    if state.end_after is not None and state.turns_done >= state.end_after:
        state.phase = "over"
        events.append(Event(T_("the Baltic freezes over: the game is over")))
        return
    refill(state, 0, None, chance, events)


def refill(state: State, start: int, owed: int | None, chance: Chance, events: list[Event]) -> None:
    """Fill every empty area without ships in board order from ``start``; the area at ``start`` gets
    ``owed`` goods when resuming after a time token (it still gets its full count)."""
    occupied = {space for p in state.players.values() for space in p.ships}
    filled: list[str] = []

    def report() -> None:
        if filled:
            events.append(Event(T_("refill: {areas}", areas=separated(filled))))

    for area in BOARD.areas[start:]:
        if owed is not None and area.index == start:
            need = owed
        elif state.board[area.name] or area.name in occupied:
            continue
        else:
            need = area.capacity
        got: list[str] = []
        while need:
            if not state.bag:
                if got:
                    filled.append(_area_got(area.name, got))
                report()
                events.append(Event(T_("the bag is empty: refills stop")))
                state.phase = "turn"
                state.refill_at, state.refill_owed = None, 0
                return
            kind = draw_from_counts(chance, "bag", state.bag)
            add(state.bag, kind, -1)
            if kind != TIME:
                add(state.board[area.name], kind)
                got.append(kind)
                need -= 1
                continue
            state.time_track += 1
            if state.time_track == COMPONENTS.time_tokens:
                n = len(state.order)
                last = state.turns_done - 1
                state.end_after = (last // n + 2) * n
                events.append(
                    Event(
                        TN_(
                            "the sixth time token is drawn: winter comes; the game ends after {n} more "
                            "turn (this round, then one full round)",
                            "the sixth time token is drawn: winter comes; the game ends after {n} more "
                            "turns (this round, then one full round)",
                            state.end_after - state.turns_done,
                        )
                    )
                )
                continue
            if got:
                filled.append(_area_got(area.name, got))
            report()
            events.append(
                Event(
                    T_(
                        "time token {time_track} is drawn: every player chooses a company token",
                        time_track=state.time_track,
                    )
                )
            )
            state.phase = "company"
            state.refill_at, state.refill_owed = area.index, need
            return
        filled.append(_area_got(area.name, got))
    report()
    state.phase = "turn"
    state.refill_at, state.refill_owed = None, 0


def tax_due(state: State, seat: str) -> int:
    """How many goods the tax token discards now: 2, or all there is when it is the last token."""
    player = state.players[seat]
    have = total(player.hold) + total(player.warehouse)
    return min(2, have) if len(player.tokens) == 1 else 2


def check_company(state: State, seat: str, choice: CompanyChoice) -> None:
    """Rules "Time tokens": raise :class:`RulesError` if ``seat`` may not play ``choice``."""
    player = state.players[seat]
    token = choice.token
    quote = "company: " + written(choice)

    def fail(code: str, message: str) -> None:
        raise RulesError(code, message, step=0, action=T_("choosing a company token"), quote=quote)

    if token not in player.tokens:
        fail("company.token_used", T_("you have played your {token} token already", token=token))
    if token != "tax":
        if choice.fish in player.market:
            fail(
                "company.slot_taken",
                T_("your {fish} slot already holds a company token", fish=goods_word(choice.fish or "")),
            )
        return
    have = total(player.hold) + total(player.warehouse)
    if len(player.tokens) > 1 and have < 2:
        fail(
            "company.tax_needs_two_goods",
            T_(
                "tax needs two goods to discard and you have {have}; it may be played with fewer "
                "only as your last company token",
                have=have,
            ),
        )
    due = tax_due(state, seat)
    discard = choice.discard or []
    if len(discard) != due:
        fail(
            "company.tax_discard_count",
            TN_(
                "tax discards {n} good; you named {named}",
                "tax discards {n} goods; you named {named}",
                due,
                named=len(discard),
            ),
        )
    sources = tax_sources(state, seat, choice)
    for (kind, where), n in Counter(sources).items():
        place = player.hold if where == "hold" else player.warehouse
        if place.get(kind, 0) < n:
            owned = player.hold.get(kind, 0) + player.warehouse.get(kind, 0)
            if where == "hold" and player.warehouse.get(kind):
                fail(
                    "company.tax_not_in_hold",
                    T_(
                        "too few {kind} in your hold: it has {have}, you named {n}; for the warehouse's, "
                        "write `{example}`",
                        have=place.get(kind, 0),
                        kind=goods_word(kind),
                        n=n,
                        example=f"{{goods: {kind}, from: warehouse}}",
                    ),
                )
            if where == "hold":
                fail(
                    "company.tax_not_in_hold",
                    T_(
                        "too few {kind} in your hold: it has {have}, you named {n}",
                        have=place.get(kind, 0),
                        kind=goods_word(kind),
                        n=n,
                    ),
                )
            fail(
                "company.tax_not_owned",
                T_(
                    "too few {kind} in your hold and warehouse: they have {owned}, you named {n}",
                    owned=owned,
                    kind=goods_word(kind),
                    n=n,
                ),
            )


def tax_sources(state: State, seat: str, choice: CompanyChoice) -> list[tuple[str, str]]:
    """Where each good of the tax comes from, ``(kind, "hold" | "warehouse")``, in the order named.

    Rules file, Rulings: the payer chooses per good; the hold is the default. A bare name comes from
    the hold while the hold still has one of that kind (amber never does), else from the warehouse."""
    hold = dict(state.players[seat].hold)
    sources = []
    for item in choice.discard or []:
        if isinstance(item, str):
            kind, where = item, "hold" if hold.get(item, 0) > 0 else "warehouse"
        else:
            kind, where = item.goods, item.from_
        if where == "hold":
            hold[kind] = hold.get(kind, 0) - 1
        sources.append((kind, where))
    return sources


def tax_written(hold: dict[str, int], from_hold: list[str], from_warehouse: list[str]) -> list[Any]:
    """The tax's ``discard`` list as an order writes it: the hold's goods by bare name first, then the
    warehouse's, bare where the hold has none of that kind left, else ``{goods, from: warehouse}``."""
    left = dict(hold)
    for kind in from_hold:
        left[kind] -= 1
    written: list[Any] = list(from_hold)
    for kind in from_warehouse:
        written.append({"goods": kind, "from": "warehouse"} if left.get(kind, 0) > 0 else kind)
    return written


def resolve_company(
    state: State, choices: Mapping[str, CompanyChoice], chance: Chance, events: list[Event]
) -> None:
    """Every player's company token at once, then the time token onto the track and the refill on."""
    for seat in state.order:
        choice = choices[seat]
        check_company(state, seat, choice)
        player = state.players[seat]
        player.tokens.remove(choice.token)
        if choice.token != "tax":
            assert choice.fish is not None
            player.market[choice.fish] = choice.token
            events.append(
                Event(
                    T_(
                        "{seat} put a company token face down on the {fish} slot",
                        seat=seat,
                        fish=goods_word(choice.fish),
                    )
                )
            )
            events.append(
                Event(
                    T_("you put {token} on {fish}", token=choice.token, fish=goods_word(choice.fish)), to=seat
                )
            )
            continue
        player.tax_paid = True
        from_hold: dict[str, int] = {}
        from_warehouse: dict[str, int] = {}
        for kind, where in tax_sources(state, seat, choice):
            if where == "hold":
                add(player.hold, kind, -1)
                add(from_hold, kind)
                add(state.discarded, kind)
            else:
                add(player.warehouse, kind, -1)
                add(from_warehouse, kind)
                add(player.taxed, kind)
        fish = counted_list(as_list(from_hold, FISH), FISH)
        n = total(from_warehouse)
        # whole sentences, one per case, so each reads right in every language
        if from_hold and n == 1:
            said = T_(
                "{seat} played the tax token and discarded {fish} from the hold and 1 good from the "
                "warehouse",
                seat=seat,
                fish=fish,
            )
        elif from_hold and n:
            said = TN_(
                "{seat} played the tax token and discarded {fish} from the hold and {n} good from the "
                "warehouse",
                "{seat} played the tax token and discarded {fish} from the hold and {n} goods from the "
                "warehouse",
                n,
                seat=seat,
                fish=fish,
            )
        elif from_hold:
            said = T_("{seat} played the tax token and discarded {fish} from the hold", seat=seat, fish=fish)
        elif n == 1:
            said = T_("{seat} played the tax token and discarded 1 good from the warehouse", seat=seat)
        elif n:
            said = TN_(
                "{seat} played the tax token and discarded {n} good from the warehouse",
                "{seat} played the tax token and discarded {n} goods from the warehouse",
                n,
                seat=seat,
            )
        else:
            said = T_("{seat} played the tax token and discarded nothing (no goods left)", seat=seat)
        events.append(Event(said))
        if from_warehouse:
            mine = counted_list(as_list(from_warehouse, GOODS), GOODS)
            events.append(Event(T_("you paid tax with {mine} from your warehouse", mine=mine), to=seat))
    events.append(
        Event(
            T_(
                "time token {time_track} goes onto the time track; the refill goes on",
                time_track=state.time_track,
            )
        )
    )
    assert state.refill_at is not None
    refill(state, state.refill_at, state.refill_owed, chance, events)


def _area_got(area: str, got: list[str]) -> str:
    """One area's part of a refill event: ``skagerrak: salmon and flatfish``."""
    return T_("{area}: {goods}", area=area, goods=listed(goods_list(got)))
