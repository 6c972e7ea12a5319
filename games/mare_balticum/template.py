"""Order templates: YAML lines under ``orders:`` explaining each step possible now, with examples."""

from __future__ import annotations

from pbem.core.i18n import P_, T_, TN_, _, comment, series

from .board import AMBER, BOARD, COMPONENTS, FISH, GOODS, PORTS
from .rules import fleet_breaks
from .seasons import tax_due
from .state import State, as_list, total
from .words import counted, counted_list, goods_list, listed


def template(state: State, seat: str) -> str:
    """Comment lines (two-space indent) and, where one order is the obvious minimal one, that order."""
    if state.phase == "port":
        lines = _port(state)
    elif state.phase == "turn" and seat == state.active:
        lines = _turn(state, seat)
    elif state.phase == "company":
        lines = _company(state, seat)
    else:
        lines = [*comment("nothing is asked of you now"), "[]"]
    return "".join(f"  {line}\n" for line in lines)


def _port(state: State) -> list[str]:
    taken = {p: state.ships_on(p) for p in PORTS if state.ships_on(p)}
    lines = [
        *comment("Put your first ship into a port (several players may share one):"),
        f"#   {', '.join(PORTS)}",
    ]
    if taken:
        lines += comment("ships already there:")
        lines += [f"#   {port}: {', '.join(seats)}" for port, seats in taken.items()]
    lines += [*comment("Remove the # of one line:"), "# - port: gdansk"]
    return lines


def _turn(state: State, seat: str) -> list[str]:
    player = state.players[seat]
    lines = comment("Up to 3 actions, in the order written; discards are free, anywhere.")
    mine = set(player.ships)
    if player.supply:
        targets = [
            s for s in (*BOARD.adjacent,) if s not in mine and fleet_breaks([*player.ships, s], s) is None
        ]
        lines += comment(
            "sail: a new ship ({supply} in supply) next to one of yours, e.g.", supply=player.supply
        )
        lines.append(
            f"# - sail: {{to: {targets[0]}}}" if targets else comment("(no space fits now)", lead="#   ")[0]
        )
    else:
        example = next(
            (
                (o, t)
                for o in player.ships
                for t in BOARD.adjacent
                if t not in mine and fleet_breaks([*(s for s in player.ships if s != o), t], t) is None
            ),
            None,
        )
        lines += comment("sail: move a ship; then each ship must be next to another of yours")
        if example:
            lines.append(f"# - sail: {{from: {example[0]}, to: {example[1]}}}")
    fishing = [(a, g) for a in player.ships if a in state.board for g in as_list(state.board[a], GOODS)]
    full = total(player.hold) >= COMPONENTS.hold_limit
    if fishing:
        lines += comment("fish: a goods token where you have a ship (amber: to the warehouse)")
        for area, goods in dict.fromkeys(fishing):
            if not full or goods == AMBER:
                lines.append(f"# - fish: {{at: {area}, goods: {goods}}}")
        later = [(area, goods) for area, goods in dict.fromkeys(fishing) if full and goods != AMBER]
        if later:
            lines += comment("your hold is full (5 fish): after a discard, e.g.", lead="#   ")
            lines += [f"#   - fish: {{at: {area}, goods: {goods}}}" for area, goods in later]
    hold = as_list(player.hold, FISH)
    for port in (s for s in player.ships if s in BOARD.ports):
        slots = state.demand[port]
        wanted = [f for f in hold if f in slots]
        takes = listed(goods_list(f for f in slots if f))  # in the reader's words: a comment
        if takes:
            lines += comment("unload at {port} (takes {takes}):", port=port, takes=takes)
        else:
            lines += comment("unload at {port} (takes nothing yet):", port=port)
        if wanted:
            lines.append(f"# - unload: {{port: {port}, fish: [{', '.join(wanted)}]}}")
        if state.options["demand"] == "placed" and None in slots:
            lines += comment("a fish no slot names here puts its demand token on a free slot;", lead="#   ")
            lines += comment(
                "add `slot: 0` or `slot: -1` to choose the slot (-1 costs one fish)", lead="#   "
            )
    if hold:
        lines += comment("discard (free): fish from your hold, e.g.")
        lines.append(f"# - discard: [{hold[0]}]")
    if state.options["contracts"]:
        others = sum(1 for s, p in state.players.items() if s != seat and p.contract is not None)
        cards = [c for c in range(1, len(COMPONENTS.contracts) + 1) if c != player.contract]
        if player.contract:
            lines += comment(
                "contract: exchange your card {card} for the first card of your list still in the pile "
                "({n} face down); list card numbers, best first, at least {k}:",
                card=player.contract,
                n=len(state.pile),
                k=others + 1,
            )
        else:
            lines += comment(
                "contract: take the first card of your list still in the pile ({n} face down); list card "
                "numbers, best first, at least {k}:",
                n=len(state.pile),
                k=others + 1,
            )
        for c in cards:
            lines.append(f"#   {c}: {_(counted_list(COMPONENTS.contracts[c - 1], GOODS))}")
        lines.append(f"# - contract: [{', '.join(str(c) for c in cards[: others + 1])}]")
    # the empty list is the orders as they stand: its comment in the reader's words like every other
    lines += comment("no action; to act, replace this line by your steps", lead="[]  # ", follow="# ")
    return lines


def _company(state: State, seat: str) -> list[str]:
    player = state.players[seat]
    free = [f for f in FISH if f not in player.market]
    numbers = [t for t in player.tokens if t != "tax"]
    lines = comment(
        "Time token {time}: play one company token: {tokens}",
        time=state.time_track,
        tokens=series([f"`{t}`" for t in player.tokens]),
    )
    if numbers:
        lines += comment("a number token goes face down on a free market slot:")
        # Translators: a value to write, in backticks, and the reader's word for it ("`cod` (tőkehal)")
        slots = [T_("`{keyword}` ({word})", keyword=f, word=P_("goods", f)) for f in free]
        lines.append("#   " + _(series(slots)))
    if "tax" in player.tokens:
        due = tax_due(state, seat)
        lines += comment(
            TN_(
                "tax discards {n} good: a bare name comes from the hold while it has one; {example} "
                "from the warehouse",
                "tax discards {n} goods: a bare name comes from the hold while it has one; {example} "
                "from the warehouse",
                due,
                example="`{goods: cod, from: warehouse}`",
            )
        )
        lines += comment("your hold: {goods}", lead="#   ", goods=_counts(player.hold, FISH))
        lines += comment("your warehouse: {goods}", lead="#   ", goods=_counts(player.warehouse, GOODS))
    if len(player.tokens) == 1:
        lines += comment("your last token; this is the order:")
        if numbers:
            return [*lines, f"- company: {{token: {numbers[0]}, fish: {free[0]}}}"]
        owned = as_list(player.hold, FISH) + as_list(player.warehouse, GOODS)
        if total(player.hold) + total(player.warehouse) <= 2:
            return [*lines, f"- company: {{token: tax, discard: [{', '.join(owned)}]}}"]
        return [*lines, f"# - company: {{token: tax, discard: [{owned[0]}, {owned[1]}]}}"]
    if numbers:
        lines.append(f"# - company: {{token: {numbers[0]}, fish: {free[0]}}}")
    owned = as_list(player.hold, FISH) + as_list(player.warehouse, GOODS)
    if "tax" in player.tokens and len(owned) >= 2:
        lines.append(f"# - company: {{token: tax, discard: [{owned[0]}, {owned[1]}]}}")
    return lines


def _counts(goods: dict[str, int], order: tuple[str, ...]) -> str:
    """``herring ×2 and amber ×1``, or ``none``: words for a comment, translated with it."""
    return listed([counted(k, goods[k]) for k in order if goods.get(k)]) or T_("none")
