"""The open-sea board: coral tiles and algae (action 7), feeding (action 1) and taking (action 10).

Each function changes the state it is given in place and returns the public text of what happened; the
caller has already checked legality with the matching ``*_problem`` function.
"""

from __future__ import annotations

from pbem.core.game import Chance, draw_from_counts
from pbem.core.i18n import T_, TN_, Text, join_texts, series

from .data import OPEN_SEA, POLYPS_PER_COLOUR, TILES
from .reef import Problem, coral, face
from .state import State
from .words import colour as w
from .words import counts
from .words import tile as tile_word


def describe_tile(state: State, tile: str) -> Text:
    f = face(state, tile)
    return T_("{tile} (now {strong} > {weak})", tile=tile_word(tile), strong=w(f.strong), weak=w(f.weak))


# ------------------------------------------------------------------------------------------ algae (7)


def algae_problem(state: State, seat: str, pay: str, colour: str, to: str, locked_this_turn: bool) -> Problem:
    """Why this alga may not be bought and played now (section 3, action 7), or ``None``."""
    p = state.players[seat]
    if p.front[pay] <= 0:
        return "algae.no_eaten", T_(
            "you have no eaten {pay} polyp in front of your screen to pay with", pay=w(pay)
        )
    if state.algae_supply[colour] <= 0:
        return "algae.supply", T_("the supply has no {colour} alga left", colour=w(colour))
    if to == "space":
        return None
    if not p.sea_shrimp:
        return "algae.no_key", T_("you may lock a coral tile only once you have a shrimp on the open sea")
    if locked_this_turn:
        return "algae.one_lock", T_("you have already locked a coral tile this turn")
    if to in state.locks:
        return "algae.locked", T_("coral tile {to} is already locked", to=tile_word(to))
    if face(state, to).large != colour:
        return (
            "algae.colour",
            T_(
                "coral tile {to} shows {large} as its large alga, not {colour}",
                to=tile_word(to),
                large=w(face(state, to).large),
                colour=w(colour),
            ),
        )
    unlocked = [t for t in TILES if t not in state.locks]
    if unlocked == [to] and sum(p.parrotfish.values()) < 2:
        return "algae.last_lock", T_(
            "you may not lock the last unlocked coral tile before your parrotfish has eaten 2 polyps"
        )
    return None


def play_algae(state: State, seat: str, pay: str, colour: str, to: str) -> Text:
    """Pay an eaten polyp, take the alga, play it; unlocked tiles with that large alga turn over."""
    p = state.players[seat]
    p.front[pay] -= 1
    state.bag[pay] += 1
    state.algae_supply[colour] -= 1
    if to == "space":
        if state.algae_space is not None:
            state.algae_supply[state.algae_space] += 1
        state.algae_space = colour
    else:
        state.locks[to] = colour
    turned = [t for t in TILES if t not in state.locks and face(state, t).large == colour]
    for t in turned:
        state.up[t] = not state.up[t]
    flips = (
        T_("turned over: {tiles}", tiles=join_texts([describe_tile(state, t) for t in turned], "; "))
        if turned
        else T_("no tile turned over")
    )
    if to == "space":
        return T_(
            "{seat} paid an eaten {pay} polyp for one {colour} alga on the algae space; {flips}",
            seat=seat,
            pay=w(pay),
            colour=w(colour),
            flips=flips,
        )
    return T_(
        "{seat} paid an eaten {pay} polyp for one {colour} alga and locked {tile}; {flips}",
        seat=seat,
        pay=w(pay),
        colour=w(colour),
        tile=describe_tile(state, to),
        flips=flips,
    )


# ------------------------------------------------------------------------------------------ feeding (1)


def feed_problem(state: State, seat: str, space: str) -> Problem:
    """Why ``seat`` may not feed the coral at ``space`` now (action 1), or ``None``."""
    if space[0] not in state.boards:
        return "space.not_in_play", T_("reef board {board} is not in this game", board=space[0])
    if space not in state.polyps:
        return "feed.no_coral", T_("there is no polyp on {space}", space=space)
    c = coral(state, space)
    owners = [state.shrimp[s] for s in c if s in state.shrimp]
    if seat not in owners:
        return "feed.not_yours", T_(
            "the coral at {space} is not protected by one of your shrimp", space=space
        )
    if len(c) < 5:
        return "feed.too_small", TN_(
            "the coral at {space} has {n} polyp; feeding needs at least 5",
            "the coral at {space} has {n} polyps; feeding needs at least 5",
            len(c),
            space=space,
        )
    return None


def polyps_back(state: State, final: bool) -> int:
    """How many polyps a feeding returns to the bag (section 9 and 11): 4, 5 in a final feeding turn;
    the advanced game one more (5, 6). The one place this number is decided: feeding, the template and
    the view all read it here."""
    return (5 if final else 4) + (1 if state.advanced else 0)


def feed(state: State, seat: str, space: str, final: bool) -> Text:
    """Feed the coral at ``space``: 4 (5 final; advanced 5/6) polyps to the bag, the rest and the
    shrimp to the parrotfish (the first shrimp ever fed goes onto the open sea instead)."""
    p = state.players[seat]
    c = coral(state, space)
    colour = state.polyps[space]
    back = min(polyps_back(state, final), len(c))
    for s in c:
        del state.polyps[s]
        if s in state.shrimp:
            del state.shrimp[s]
    state.bag[colour] += back
    p.parrotfish[colour] += len(c) - back
    p.feedings += 1
    if p.sea_shrimp:
        p.eaten_shrimp += 1
        shrimp_to = T_("its shrimp went into the parrotfish")
    else:
        p.sea_shrimp = True
        shrimp_to = T_("its shrimp went onto the open sea")
    # a coral has at least 5 polyps, yet the count picks the reader's form (Russian: 5 полипов, 22 полипа)
    return TN_(
        "{seat} fed the {n}-polyp {colour} coral at {space} to their parrotfish ({back}; {shrimp})",
        "{seat} fed the {n}-polyp {colour} coral at {space} to their parrotfish ({back}; {shrimp})",
        len(c),
        seat=seat,
        colour=w(colour),
        space=space,
        back=TN_("{n} back to the bag", "{n} back to the bag", back),
        shrimp=shrimp_to,
    )


# ------------------------------------------------------------------------------------------ taking (10)


def take_problem(state: State, space: str) -> Problem:
    sp = state.sea[space]
    if not sp.larva and sum(sp.polyps.values()) == 0:
        return "take.empty", T_("the {space} open-sea space is empty", space=w(space))
    return None


def draw_polyp(state: State, chance: Chance) -> str | None:
    """One polyp from the bag; when the bag is empty the bonus row goes into it first (action 10)."""
    if sum(state.bag.values()) == 0:
        for c, n in state.bonus.items():
            state.bag[c] += n
            state.bonus[c] = 0
    if sum(state.bag.values()) == 0:
        return None
    colour = draw_from_counts(chance, "bag", state.bag)
    state.bag[colour] -= 1
    return colour


def take(state: State, seat: str, space: str, chance: Chance) -> tuple[Text, Text, bool]:
    """Take a space's larva and polyps, then refill the open sea. Returns (what was taken, how the sea
    was refilled, whether the game ends by condition 4)."""
    p = state.players[seat]
    sp = state.sea[space]
    got = dict(sp.polyps)
    if sp.larva:
        p.larvae[space] += 1
    for c, n in got.items():
        p.screen[c] += n
        sp.polyps[c] = 0
    n = sum(got.values())
    polyps = TN_("{n} polyp ({colours})", "{n} polyps ({colours})", n, colours=counts(got))
    if sp.larva:
        text = T_(
            "{seat} took the {space} open-sea space: the {space} larva and {polyps}",
            seat=seat,
            space=w(space),
            polyps=polyps,
        )
    else:
        text = T_(
            "{seat} took the {space} open-sea space: no larva and {polyps}",
            seat=seat,
            space=w(space),
            polyps=polyps,
        )
    sp.larva = False
    ended = False
    if state.larva_supply[space] > 0:
        state.larva_supply[space] -= 1
        sp.larva = True
    else:
        ended = True
    drawn: list[str] = []
    for name in OPEN_SEA:
        target = state.sea[name]
        if sum(target.polyps.values()) < 3:
            colour = draw_polyp(state, chance)
            if colour is None:
                ended = True
                break
            target.polyps[colour] += 1
            drawn.append(T_("{colour} to {space}", colour=w(colour), space=w(name)))
    refill = (
        T_("the open sea was refilled: {draws}", draws=series(drawn))
        if drawn
        else T_("the open sea was refilled: no polyp needed")
    )
    if sum(state.bag.values()) < 3:
        ended = True
    return text, refill, ended


def bag_surely_holds(state: State, seat: str, colour: str) -> bool:
    """Whether ``seat`` can tell from what it sees that the bag holds a ``colour`` polyp: more of that
    colour are out of its sight than the other seats' screens and parrotfish could hide."""
    seen = sum(1 for c in state.polyps.values() if c == colour) + state.bonus[colour]
    seen += sum(sp.polyps[colour] for sp in state.sea.values())
    seen += sum(p.front[colour] for p in state.players.values())
    me = state.players[seat]
    seen += me.screen[colour] + me.parrotfish[colour]
    hidden = sum(
        sum(p.screen.values()) + sum(p.parrotfish.values()) for s, p in state.players.items() if s != seat
    )
    return POLYPS_PER_COLOUR - seen > hidden
