"""The reef boards: corals, dominance, shrimp protection and placing polyps (rules sections 1, 4, 5, 7).

Functions here read a :class:`State` and, for :func:`put_polyp`, change it in place; the caller owns the
copy. Legality questions return a ``(code, message)`` problem or ``None``; they never raise.
"""

from __future__ import annotations

from pbem.core.i18n import T_

from .data import BOARDS, CORAL_COLOURS, NEIGHBOURS, TILE_OF, TILES, Face
from .state import State
from .words import colour as w

Problem = tuple[str, str] | None


def coral(state: State, space: str) -> set[str]:
    """The coral containing the polyp on ``space`` (empty when no polyp is there)."""
    colour = state.polyps.get(space)
    if colour is None:
        return set()
    polyps = state.polyps
    seen = {space}
    todo = [space]
    while todo:
        for n in NEIGHBOURS[todo.pop()]:
            if n not in seen and polyps.get(n) == colour:
                seen.add(n)
                todo.append(n)
    return seen


def corals(state: State) -> list[set[str]]:
    """Every coral on the table."""
    seen: set[str] = set()
    out = []
    for space in sorted(state.polyps):
        if space not in seen:
            c = coral(state, space)
            seen |= c
            out.append(c)
    return out


def shrimp_on(state: State, spaces: set[str]) -> str | None:
    """The space of the shrimp standing on one of ``spaces``, if any."""
    for s in spaces:
        if s in state.shrimp:
            return s
    return None


def face(state: State, tile: str) -> Face:
    """The side of ``tile`` showing now."""
    return TILES[tile].faces[state.up[tile]]


def beats(state: State, attacker: str, target: str) -> bool:
    """Whether ``attacker`` beats ``target`` now: the pair's tile shows the attacker strong."""
    return attacker != target and face(state, TILE_OF[frozenset((attacker, target))]).strong == attacker


def values(state: State) -> dict[str, int]:
    """The scoring value of each colour: 1 + the tiles showing it strong (section 7)."""
    v = dict.fromkeys(CORAL_COLOURS, 1)
    for t in TILES:
        v[face(state, t).strong] += 1
    return v


def protector(state: State, space: str) -> str | None:
    """The space of the shrimp protecting the polyp on ``space``: on it, or on an orthogonal neighbour
    of the same coral (adjacent polyps of one colour always belong to one coral)."""
    if space in state.shrimp:
        return space
    colour = state.polyps.get(space)
    for n in NEIGHBOURS[space]:
        if n in state.shrimp and state.polyps.get(n) == colour:
            return n
    return None


def adjacent_corals(state: State, space: str, colour: str) -> list[set[str]]:
    """The distinct corals of ``colour`` touching ``space`` orthogonally."""
    out: list[set[str]] = []
    for n in NEIGHBOURS[space]:
        if state.polyps.get(n) == colour and not any(n in c for c in out):
            out.append(coral(state, n))
    return out


def shrimp_block(state: State, space: str, colour: str) -> bool:
    """Whether a ``colour`` polyp on ``space`` would join two ``colour`` corals each carrying a shrimp."""
    with_shrimp = 0
    for c in adjacent_corals(state, space, colour):
        if shrimp_on(state, c) is not None:
            with_shrimp += 1
    return with_shrimp >= 2


def board_in_play(state: State, space: str) -> bool:
    return space[0] in state.boards


def is_sand(space: str) -> bool:
    b = BOARDS.get(space[0])
    return b is not None and space in b.sand


def placement_refused(state: State, space: str, colour: str) -> str | None:
    """The code of the rule that refuses a ``colour`` polyp on ``space`` now, or ``None``: the verdict
    of :func:`placement_problem` without its words, for the questions that only ask whether (game end
    condition 3 asks it of every rock space after every step, and a refusal's words cost more than
    the rules)."""
    if not board_in_play(state, space):
        return "space.not_in_play"
    if is_sand(space):
        return "place.deep_sand"
    target = state.polyps.get(space)
    if space in state.shrimp and target is None:
        return "place.shrimp"
    if target == colour:
        return "place.occupied"
    if target is not None:
        sizes = [len(c) for c in adjacent_corals(state, space, colour)]
        if not sizes:
            return "attack.not_adjacent"
        if max(sizes) < 2:
            return "attack.too_small"
        if not beats(state, colour, target):
            return "attack.weaker"
        if protector(state, space) is not None:
            return "attack.protected"
    if shrimp_block(state, space, colour):
        return "place.shrimp_block"
    return None


def placement_problem(state: State, space: str, colour: str) -> Problem:
    """Why a ``colour`` polyp may not go on ``space`` now (growth or attack), or ``None``."""
    code = placement_refused(state, space, colour)
    if code is None:
        return None
    return code, _REFUSALS[code](state, space, colour)


def _protected(state: State, space: str, colour: str) -> str:
    guard = protector(state, space)
    assert guard is not None  # the refusal was that a shrimp protects it
    return T_(
        "the {target} polyp on {space} is protected by {owner}'s shrimp on {guard}",
        target=w(state.polyps[space]),
        space=space,
        owner=state.shrimp[guard],
        guard=guard,
    )


#: each refusal's words, from what the verdict read
_REFUSALS = {
    "space.not_in_play": lambda state, space, colour: T_(
        "reef board {board} is not in this game", board=space[0]
    ),
    "place.deep_sand": lambda state, space, colour: T_(
        "{space} is deep sand: no polyp ever grows there", space=space
    ),
    "place.shrimp": lambda state, space, colour: T_("a shrimp stands on {space}", space=space),
    "place.occupied": lambda state, space, colour: T_(
        "{space} already holds a polyp of that colour ({colour})", space=space, colour=w(colour)
    ),
    "attack.not_adjacent": lambda state, space, colour: T_(
        "no {colour} coral touches {space}, so it cannot attack there", colour=w(colour), space=space
    ),
    "attack.too_small": lambda state, space, colour: T_(
        "{colour} corals need at least 2 polyps before they can attack {space}",
        colour=w(colour),
        space=space,
    ),
    "attack.weaker": lambda state, space, colour: T_(
        "{colour} does not beat {target} now, so it cannot attack {space}",
        colour=w(colour),
        target=w(state.polyps[space]),
        space=space,
    ),
    "attack.protected": _protected,
    "place.shrimp_block": lambda state, space, colour: T_(
        "a polyp on {space} would join two {colour} corals that each carry a shrimp",
        space=space,
        colour=w(colour),
    ),
}


def put_polyp(state: State, space: str, colour: str, eater: str) -> tuple[str | None, bool]:
    """Place a polyp already judged legal; the eaten polyp (if any) goes in front of ``eater``'s screen.

    Returns ``(eaten colour or None, whether extra growth happened)``; extra growth (section 4) fills the
    board's starfish space from the bonus row or the bag.
    """
    eaten = state.polyps.get(space)
    if eaten is not None:
        state.players[eater].front[eaten] += 1
    state.polyps[space] = colour
    return eaten, extra_growth(state, space, colour)


def extra_growth(state: State, space: str, colour: str) -> bool:
    if state.advanced:
        return False
    star = BOARDS[space[0]].starfish
    if space not in NEIGHBOURS[star] or star in state.polyps or star in state.shrimp:
        return False
    if shrimp_block(state, star, colour):
        return False
    if state.bonus[colour] > 0:
        state.bonus[colour] -= 1
        refill_bonus(state, colour)
    elif state.bag[colour] > 0:
        state.bag[colour] -= 1
    else:
        return False
    state.polyps[star] = colour
    return True


def refill_bonus(state: State, colour: str) -> None:
    """Refill the bonus row's ``colour`` from the bag, if the bag has one."""
    if state.bonus[colour] == 0 and state.bag[colour] > 0:
        state.bag[colour] -= 1
        state.bonus[colour] = 1


def shrimp_on_board(state: State, seat: str, board: str) -> int:
    return sum(1 for sp, owner in state.shrimp.items() if owner == seat and sp[0] == board)


def empty_rock(state: State, space: str) -> bool:
    return (
        board_in_play(state, space)
        and space in NEIGHBOURS
        and space not in state.polyps
        and space not in state.shrimp
    )


def any_legal_placement(state: State) -> bool:
    """Whether some polyp of some colour could be placed somewhere (game end condition 3)."""
    for b in state.boards:
        for space in BOARDS[b].rock:
            if space in state.shrimp:
                continue
            target = state.polyps.get(space)
            for colour in CORAL_COLOURS:
                if colour == target:
                    continue
                if target is None and not shrimp_block(state, space, colour):
                    return True
                if target is not None and placement_refused(state, space, colour) is None:
                    return True
    return False


def protected_polyps(state: State, seat: str) -> int:
    """Polyps on the boards in corals carrying ``seat``'s shrimp (the fourth tie-break)."""
    total = 0
    for space, owner in state.shrimp.items():
        if owner == seat and space in state.polyps:
            total += len(coral(state, space))
    return total
