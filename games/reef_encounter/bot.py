"""A bot that plays any pending decision legally and not stupidly.

It builds a turn step by step on a working copy with the very :class:`TurnRunner` that judges orders, so
every step it keeps is legal: feed when it can, grow and attack with the larva it holds the most polyps
for, protect its biggest unguarded coral, lock a tile that raises its parrotfish's score, then take the
richest open-sea space.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pbem.core.game import Chance, Game, RulesError

from . import orders as o
from .data import BOARDS, CORAL_COLOURS, NEIGHBOURS, OPEN_SEA, TILES
from .reef import adjacent_corals, face, placement_refused, shrimp_on, shrimp_on_board, values
from .sea import algae_problem, bag_surely_holds, feed_problem
from .state import State
from .turn import MAX_SHRIMP_PER_BOARD, NoChance, TurnRunner

#: coral number of each polyp, size of each coral, owner of each coral's shrimp
Labels = tuple[dict[str, int], list[int], list[str | None]]


def _label(state: State) -> Labels:
    """Coral number of every polyp, the size of each coral and the owner of its shrimp."""
    of: dict[str, int] = {}
    sizes: list[int] = []
    owners: list[str | None] = []
    polyps = state.polyps
    for start, colour in polyps.items():
        if start in of:
            continue
        k = len(sizes)
        of[start] = k
        todo, size, owner = [start], 0, None
        while todo:
            s = todo.pop()
            size += 1
            if s in state.shrimp:
                owner = state.shrimp[s]
            for n in NEIGHBOURS[s]:
                if n not in of and polyps.get(n) == colour:
                    of[n] = k
                    todo.append(n)
        sizes.append(size)
        owners.append(owner)
    return of, sizes, owners


class _Builder:
    def __init__(self, state: State, seat: str) -> None:
        self.runner = TurnRunner(state.clone(), seat, NoChance())
        self.seat = seat
        self.steps: list[o.Step] = []

    @property
    def state(self) -> State:
        return self.runner.state

    def try_step(self, step: o.Step) -> bool:
        """Apply ``step`` if legal; the runner is forked first so a refused step changes nothing."""
        fork = self.runner.fork()
        try:
            fork.apply(len(self.steps), step)
        except RulesError:
            return False
        self.runner = fork
        self.steps.append(step)
        return True


def _placement_score(state: State, space: str, colour: str, seat: str, lab: Labels) -> int:
    """How much the bot likes a placement: attacks first, then growing its own guarded corals."""
    of, sizes, owners = lab
    score = 0
    target = state.polyps.get(space)
    if target is not None:
        score += 12
        k = of[space]
        if owners[k] is not None and owners[k] != seat:
            score += 3
    joined = {of[n] for n in NEIGHBOURS[space] if state.polyps.get(n) == colour}
    for k in joined:
        score += 4 + min(sizes[k], 6)
        if owners[k] == seat:
            score += 8
        elif owners[k] is not None:
            score -= 6
    star = BOARDS[space[0]].starfish
    if (
        not state.advanced
        and space in NEIGHBOURS[star]
        and star not in state.polyps
        and star not in state.shrimp
    ):
        score += 3
    return score


def _unblock(b: _Builder, colour: str) -> None:
    """Take a shrimp back behind the screen (action 5) when that lets this larva join two of our own
    guarded corals of its colour into one big enough to feed: the rules forbid joining two corals that
    each carry a shrimp."""
    state = b.state
    if not state.players[b.seat].screen[colour] and not state.players[b.seat].front[colour]:
        return
    best: tuple[int, str] | None = None
    for space in _candidates(state, colour, blocked=True):
        corals = adjacent_corals(state, space, colour)
        guards = [shrimp_on(state, c) for c in corals]
        if any(g is None or state.shrimp[g] != b.seat for g in guards):
            continue
        total = sum(len(c) for c in corals) + 1
        if total >= 5:
            smallest = min(zip(corals, guards, strict=True), key=lambda cg: (len(cg[0]), cg[1] or ""))[1]
            if smallest is not None and (best is None or (total, smallest) > best):
                best = (total, smallest)
    if best is not None:
        b.try_step(o.MoveShrimp(move_shrimp=o.ShrimpMove(from_=best[1], to="screen")))


def _place_all(b: _Builder, colour: str) -> None:
    _unblock(b, colour)
    for from_front in (False, True):
        while True:
            p = b.state.players[b.seat]
            if (p.front if from_front else p.screen)[colour] <= 0:
                break
            if not from_front and b.runner.from_screen >= 4:
                break
            lab = _label(b.state)
            spaces = _candidates(b.state, colour)
            spaces.sort(key=lambda s: (-_placement_score(b.state, s, colour, b.seat, lab), s))
            placed = False
            for s in spaces[:6]:
                step = o.Place(place=o.PlaceFrom(at=s, from_="front") if from_front else s)
                if b.try_step(step):
                    placed = True
                    break
            if not placed:
                break


def _candidates(state: State, colour: str, blocked: bool = False) -> list[str]:
    """Spaces next to a polyp of ``colour`` (growth and attacks) or, failing those, any free rock
    (``blocked``: only the spaces next to it refused because they would join two guarded corals)."""
    near: set[str] = set()
    for s, c in state.polyps.items():
        if c == colour:
            near.update(NEIGHBOURS[s])
    want = "place.shrimp_block" if blocked else None
    out = [
        s
        for s in sorted(near)
        if s not in state.shrimp
        and state.polyps.get(s) != colour
        and placement_refused(state, s, colour) == want
    ]
    if blocked:
        return out
    if not out:
        for letter in state.boards:
            for s in sorted(BOARDS[letter].rock):
                if (
                    s not in state.polyps
                    and s not in state.shrimp
                    and placement_refused(state, s, colour) is None
                ):
                    out.append(s)
                    if len(out) >= 4:
                        return out
    return out


def _larva_colour(state: State, seat: str) -> str | None:
    """The larva to play: the one that places the most polyps, more so where it grows one of our own
    guarded corals towards a feeding (a seat that never feeds never scores)."""
    p = state.players[seat]
    v = values(state)
    of, sizes, owners = _label(state)
    guarded = {
        state.polyps[s]: max(sizes[k], 0) for s, k in of.items() if owners[k] == seat and s in state.shrimp
    }
    best, best_key = None, (0, 0)
    for c, n in p.larvae.items():
        if n <= 0:
            continue
        avail = min(p.screen[c], 4) + p.front[c]
        growing = 3 if 3 <= guarded.get(c, 0) < 9 else 0
        key = (avail + growing, v[c])
        if avail > 0 and key > best_key:
            best, best_key = c, key
    return best


def _bag_exchange(b: _Builder) -> None:
    """Action 8 where it pays: a spare larva cube of a colour (we hold two or more) for one more polyp of
    it, when one cube will place all of them anyway (at most four from behind the screen), and only when
    the seat can tell the bag holds one: its choice must not depend on the bag's hidden colours."""
    p, v = b.state.players[b.seat], values(b.state)
    for c in sorted(CORAL_COLOURS, key=lambda c: (-v[c], c)):
        spare = p.larvae[c] >= 2 and 1 <= p.screen[c] <= 3 and bag_surely_holds(b.state, b.seat, c)
        if spare and b.try_step(o.PolypForLarva(polyp_for_larva=c)):
            return


def _new_shrimp(b: _Builder) -> None:
    state = b.state
    if state.players[b.seat].shrimp <= 0:
        return
    of, sizes, owners = _label(state)
    v = values(state)
    mine_per_board = {L: shrimp_on_board(state, b.seat, L) for L in state.boards}
    best: tuple[int, str] | None = None
    for s, k in of.items():
        if owners[k] is None and sizes[k] >= 2 and mine_per_board[s[0]] < MAX_SHRIMP_PER_BOARD:
            key = (sizes[k] * 3 + v[state.polyps[s]], s)
            if best is None or key > best:
                best = key
    if best is not None:
        b.try_step(o.NewShrimp(shrimp=best[1]))


def _lock(b: _Builder) -> None:
    state, p = b.state, b.state.players[b.seat]
    if not p.sea_shrimp or not any(p.front.values()):
        return
    pay = max(p.front, key=lambda c: (p.front[c], c))
    before = sum(values(state)[c] * n for c, n in p.parrotfish.items())
    best: tuple[int, str, str] | None = None
    for tile in TILES:
        if tile in state.locks:
            continue
        colour = face(state, tile).large
        if algae_problem(state, b.seat, pay, colour, tile, b.runner.locked) is not None:
            continue
        trial = state.clone()
        for t in TILES:
            if t != tile and t not in trial.locks and face(trial, t).large == colour:
                trial.up[t] = not trial.up[t]
        gain = sum(values(trial)[c] * n for c, n in p.parrotfish.items()) - before
        # locking a tile that already shows a colour we hold strong keeps it that way
        strong = face(trial, tile).strong
        gain2 = gain * 4 + (2 if p.parrotfish[strong] else 0)
        if gain2 > 0 and (best is None or (gain2, tile, colour) > best):
            best = (gain2, tile, colour)
    if best is not None:
        b.try_step(o.Algae(algae=o.AlgaePlay(pay=pay, colour=best[2], to=best[1])))


def _fish_score(state: State, seat: str) -> int:
    v = values(state)
    return sum(v[c] * n for c, n in state.players[seat].parrotfish.items())


def _algae_space(b: _Builder) -> None:
    """An alga on the algae space when turning its tiles over raises the parrotfish's score, paid with
    one of at least two eaten polyps (the others may still grow corals)."""
    state, p = b.state, b.state.players[b.seat]
    if sum(p.front.values()) < 2:
        return
    pay = max(p.front, key=lambda c: (p.front[c], c))
    before = _fish_score(state, b.seat)
    best: tuple[int, str] | None = None
    for colour, left in sorted(state.algae_supply.items()):
        if left <= 0:
            continue
        trial = state.clone()
        for t in TILES:
            if t not in trial.locks and face(trial, t).large == colour:
                trial.up[t] = not trial.up[t]
        gain = _fish_score(trial, b.seat) - before
        if gain >= 1 and (best is None or gain > best[0]):
            best = (gain, colour)
    if best is not None:
        b.try_step(o.Algae(algae=o.AlgaePlay(pay=pay, colour=best[1], to="space")))


def _move_shrimp(b: _Builder) -> None:
    """With no shrimp left behind the screen, move one from a small coral to a much bigger unguarded one."""
    state = b.state
    if state.players[b.seat].shrimp > 0:
        return
    of, sizes, owners = _label(state)
    mine = sorted((sizes[of[s]], s) for s, w in state.shrimp.items() if w == b.seat and s in of)
    free = sorted(((sizes[k], s) for s, k in of.items() if owners[k] is None), reverse=True)
    if mine and free and free[0][0] >= mine[0][0] + 3:
        src, dst = mine[0][1], free[0][1]
        b.try_step(o.MoveShrimp(move_shrimp=o.ShrimpMove(from_=src, to=dst)))


def _take(b: _Builder, rank: int = 0) -> None:
    """The richest open-sea space (``rank``: the next richest instead, for a different plan)."""
    state, p = b.state, b.state.players[b.seat]
    v = values(state)

    def worth(name: str) -> tuple[int, str]:
        sp = state.sea[name]
        w = sum(n * (2 + v[c]) for c, n in sp.polyps.items())
        if sp.larva:
            w += 4 if p.screen[name] >= 2 and p.larvae[name] == 0 else 2
        return w, name

    ranked = sorted(OPEN_SEA, key=worth, reverse=True)
    for name in ranked[rank:] + ranked[:rank]:
        if b.try_step(o.Take(take=name)):
            return


def _worth_feeding(state: State, seat: str) -> int:
    """The coral size worth feeding: at least two polyps for the parrotfish, one when the end is near
    (a seat that waits for a bigger coral may never feed), and a big one for the fourth feeding, which
    ends the game."""
    returned = 5 if state.advanced else 4
    if state.players[seat].feedings >= 3:
        return returned + 4
    if _end_is_near(state, seat):
        return returned + 1  # a polyp in the parrotfish now beats a bigger coral the end will strand
    return returned + 2


def _end_is_near(state: State, seat: str) -> bool:
    """Whether the game may end before this seat's next turn or two: another seat is one feeding from
    its fourth, the tiles are nearly all locked, or the bag is nearly empty (public facts all)."""
    others_fed = max(p.feedings for s, p in state.players.items() if s != seat)
    return others_fed >= 3 or len(state.locks) >= len(TILES) - 2 or sum(state.bag.values()) < 12


@dataclass(frozen=True)
class Plan:
    """How a turn departs from the heuristic's own choices (the stand-in's candidates are plans): feed or
    not (``None``: as the heuristic judges), the larvae to play first, the rank of the open-sea space
    to take, and whether to buy algae."""

    feed: bool | None = None
    larvae: tuple[str, ...] = ()
    take: int = 0
    algae: bool = True


def _turn(state: State, seat: str, plan: Plan = Plan()) -> list[o.Step]:
    b = _Builder(state, seat)
    of, sizes, owners = _label(state)
    feedable = [
        (sizes[k], s) for s, k in of.items() if owners[k] == seat and s in state.shrimp and sizes[k] >= 5
    ]
    worth = bool(feedable) and max(feedable)[0] >= _worth_feeding(state, seat)
    if feedable and (plan.feed if plan.feed is not None else worth):
        b.try_step(o.Feed(feed=max(feedable)[1]))
        if b.runner.ended:
            return b.steps
    _bag_exchange(b)
    for i in range(2):
        colour = plan.larvae[i] if i < len(plan.larvae) else _larva_colour(b.state, seat)
        if colour is None or not b.try_step(o.Larva(larva=colour)):
            break
        _place_all(b, colour)
    _new_shrimp(b)
    _move_shrimp(b)
    if plan.algae:
        _lock(b)
        if not b.runner.locked:
            _algae_space(b)
    if b.runner.ended:
        return b.steps
    p = b.state.players[seat]
    for c in sorted(p.front):
        if p.front[c] and p.larvae[c] == 0 and b.state.larva_supply[c] > 0:
            b.try_step(o.LarvaForPolyp(larva_for_polyp=c))
            break
    if len(b.steps) == 0:
        b.try_step(o.Pass(pass_=None))
    _take(b, plan.take)
    return b.steps


def _parrotfish(state: State, seat: str, chance: Chance) -> str:
    """The polyp for the parrotfish, by value: what its colour scores now and may come to score (the
    tile faces showing it strong), keeping the colours we hold several of for growing corals; the
    seed's draw picks among near-equal ones."""
    p, v = state.players[seat], values(state)
    strong_faces = Counter(f.strong for t in TILES.values() for f in t.faces.values())

    def worth(c: str) -> int:
        return 3 * v[c] + strong_faces[c] - (2 if p.screen[c] >= 3 else 0)

    held = [c for c in CORAL_COLOURS if p.screen[c] > 0]
    top = max(worth(c) for c in held)
    near = [c for c in held if worth(c) >= top - 1]
    return near[chance.pick("parrotfish", len(near))] if len(near) > 1 else near[0]


def final_choices(state: State, seat: str) -> list[str]:
    """The spaces of the corals ``seat`` may feed in its final feeding turn, the biggest first."""
    of, sizes, owners = _label(state)
    best = sorted((sizes[k], s) for s, k in of.items() if owners[k] == seat and s in state.shrimp)
    return [s for _, s in reversed(best) if feed_problem(state, seat, s) is None]


def bot_orders(game: Game, state: State, seat: str, chance: Chance) -> Any:
    """The bot's orders for ``seat``'s pending decision, as plain data (``game``: the engine whose
    rules they are checked against)."""
    kind = game.pending(state)[seat].kind
    if kind == "setup":
        return setup_orders(state, seat, _parrotfish(state, seat, chance))
    if kind == "final_feeding":
        best = final_choices(state, seat)
        return [{"feed": best[0]}] if best else ["pass"]
    return turn_orders(game, state, seat, Plan())


def setup_orders(state: State, seat: str, fish: str) -> list[Any]:
    """Setup with ``fish`` in the parrotfish and the two larvae of the colours held most."""
    p, v = state.players[seat], values(state)
    rest = dict(p.screen)
    rest[fish] -= 1
    ranked = sorted(rest, key=lambda c: (-rest[c], -v[c], c))
    pair = sorted(ranked[:2], key=CORAL_COLOURS.index)  # the order the step guide offers them in
    return [{"setup": {"parrotfish": fish, "larvae": pair}}]


def turn_orders(game: Game, state: State, seat: str, plan: Plan) -> list[Any]:
    """A whole turn after ``plan``, as plain data; checked, with a bare take as the fallback."""
    steps = _turn(state, seat, plan)
    data = [s.model_dump(mode="json", by_alias=True) for s in steps]
    try:
        game.check(state, seat, o.TurnOrders.model_validate(data))
    except RulesError:
        # the builder never keeps an illegal step; this guards the end-of-turn rules all the same
        for name in OPEN_SEA:
            fallback: list[Any] = ["pass", {"take": name}]
            try:
                game.check(state, seat, o.TurnOrders.model_validate(fallback))
                return fallback
            except RulesError:
                continue
    return [d if d != {"pass": None} else "pass" for d in data]
