"""Final scoring and the outcome (rules file, "End": scoring, tie-break; "Variants": contracts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pbem.core.game import Outcome
from pbem.core.i18n import N_, T_

from .board import AMBER, COMPONENTS, FISH, GOODS
from .state import State, total
from .words import listed


def score(state: State, seat: str) -> dict[str, Any]:
    """Rules "End", scoring: the hold is lost; warehouse fish score their company token's number,
    amber 1; variant 2 first sets aside complete contract sets worth 7 each.

    Ruling: the set-aside count is chosen to score most (the fewest sets among equals). The tie-break
    counts the goods left in the warehouse: goods set aside for a contract have left it ("amelyek a
    raktárában maradtak")."""
    player = state.players[seat]
    values = {fish: COMPONENTS.token_values.get(player.market.get(fish, ""), 0) for fish in FISH}

    def plain(goods: Mapping[str, int]) -> int:
        return sum(goods.get(f, 0) * values[f] for f in FISH) + goods.get(AMBER, 0)

    card: Counter[str] = Counter()
    best_sets = 0
    if state.options["contracts"] and player.contract is not None:
        card = Counter(COMPONENTS.contracts[player.contract - 1])
        most = min(player.warehouse.get(k, 0) // n for k, n in card.items())
        best = plain(player.warehouse)
        for sets in range(1, most + 1):
            rest = {k: player.warehouse.get(k, 0) - sets * card[k] for k in GOODS}
            points = sets * COMPONENTS.contract_set_points + plain(rest)
            if points > best:
                best, best_sets = points, sets
    rest = {k: player.warehouse.get(k, 0) - best_sets * card[k] for k in GOODS}
    lines = [
        {"goods": f, "count": rest[f], "value": values[f], "points": rest[f] * values[f]} for f in FISH
    ] + [{"goods": AMBER, "count": rest[AMBER], "value": 1, "points": rest[AMBER]}]
    contract_points = best_sets * COMPONENTS.contract_set_points
    return {
        "lines": lines,
        "contract_sets": best_sets,
        "contract_points": contract_points,
        "hold_lost": total(player.hold),
        "goods": total(rest),
        "total": contract_points + sum(line["points"] for line in lines),
    }


def outcome(state: State) -> Outcome:
    """Most points wins; ties go to more goods in the warehouse; still tied: the place is shared."""
    sheets = {seat: score(state, seat) for seat in state.order}
    key = {seat: (sheet["total"], sheet["goods"]) for seat, sheet in sheets.items()}
    places = {seat: 1 + sum(key[o] > key[seat] for o in key) for seat in key}
    tie_breaks = []
    for points in sorted({k[0] for k in key.values()}, reverse=True):
        tied = [s for s in state.order if key[s][0] == points]
        if len(tied) < 2:
            continue
        counts = {key[s][1] for s in tied}
        if len(counts) == 1:
            tie_breaks.append(
                T_(
                    "{seats}: equal on points ({points}) and on goods ({goods}): a shared place",
                    seats=listed(tied),
                    points=points,
                    goods=counts.pop(),
                )
            )
            continue
        goods = listed([T_("{seat}: {n}", seat=s, n=key[s][1]) for s in tied])
        shared = len(counts) < len(tied)
        tie_breaks.append(
            T_(
                "{seats}: equal on points ({points}); more goods wins (goods: {goods}); equal goods share",
                seats=listed(tied),
                points=points,
                goods=goods,
            )
            if shared
            else T_(
                "{seats}: equal on points ({points}); more goods wins (goods: {goods})",
                seats=listed(tied),
                points=points,
                goods=goods,
            )
        )
    return Outcome(
        reason=N_("winter: the sixth time token and a last full round are over"),
        scores={seat: sheet["total"] for seat, sheet in sheets.items()},
        places=places,
        tie_breaks=tie_breaks,
    )
