"""One turn: a Plant or a Surface, carried out step by step on a working copy of the state.

Rules: ``shared/rules/coral-divers.md``, "A turn", "Plant", "Shells", "Surface". :func:`carry_out` is
the one place legality is decided: ``check`` runs it and discards the result, ``resolve`` runs it and then
:func:`.upkeep.finish_plant` (refill, new station, station scoring, the end), which needs chance. Nothing here
reads a face-down token's kind before it is taken, so no error depends on a hidden token.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from pbem.core.game import Event, RulesError
from pbem.core.i18n import P_, T_, TN_, Text

from . import board, instead, scoring
from .data import ECONOMY
from .orders import Discard, Place, Plant, Shell, Surface
from .state import NURSERY, State, coral, has_clownfish, line_slots
from .words import coral_word, line_word, listed, separated, shell_word, slot_word

#: the two actions as a rules error names them, in the reader's words (the glossary's terms: «Посадка»)
ACTION_PLANT = P_("action", "plant")
ACTION_SURFACE = P_("action", "surface")


def describe(tile: str) -> str:
    """A tile in the reader's words: ``brain``, ``brain (clownfish)``."""
    kind = coral_word(coral(tile))
    return T_("{coral} (clownfish)", coral=kind) if has_clownfish(tile) else kind


def _reef_closed(coral_name: str, diver: object, tiles: int, points: int) -> Text:
    """``brain reef at g5 (tiles: 3, points: 6)``: the counts beside their labels, so the one message
    reads right for every count in every language (Russian has three plural forms, English two)."""
    return T_(
        "{coral} reef at {diver} (tiles: {tiles}, points: {points})",
        coral=coral_word(coral_name),
        diver=diver,
        tiles=tiles,
        points=points,
    )


def line_cost(state: State, line: str) -> int:
    return sum(1 for s in line_slots(line) if state.nursery[s] is not None)


def affordable_lines(state: State, seat: str) -> list[str]:
    """The choosable nursery lines holding a tile that are within reach: coins plus the pearls in
    front of the player, or any such line at all with a discount shell."""
    p = state.players[seat]
    reach = p.coins + ECONOMY.pearl_coins * p.shells.count("pearl")
    found = []
    for line in state.choosable_lines():
        c = line_cost(state, line)
        if c > 0 and ("discount" in p.shells or c <= reach):
            found.append(line)
    return found


def can_afford_a_line(state: State, seat: str) -> bool:
    return bool(affordable_lines(state, seat))


def may_surface_without_reef(state: State, seat: str) -> bool:
    """Whether ``seat`` may Surface without closing anything: a player with no reef always may (our
    ruling, wider than the rules file's "can afford no row or could place no tile": see the README)."""
    return not state.reefs_of(seat)


def fullest_row(state: State) -> str:
    """The nursery row a Surface without a reef clears: the one holding most tiles, the first of them."""
    rows = state.choosable_lines()[:NURSERY]
    return max(rows, key=lambda row: (line_cost(state, row), -rows.index(row)))


#: the rules errors that say only that orders stop short (a Plant without its line, tiles still in hand):
#: every other error names an illegal step
MISSING = frozenset({"turn.empty", "plant.no_line", "plant.tiles_left"})


@dataclass
class Planting:
    """The progress of a Plant: the taken tiles (None once placed or discarded), shells in play."""

    line: str | None = None
    taken: list[str | None] = field(default_factory=list)
    #: extra tiles taken before the line: they join ``taken`` after the line's tiles
    early: list[str] = field(default_factory=list)
    #: new reefs started this turn (at most one)
    started: int = 0
    usable: Counter[str] = field(default_factory=Counter)
    discount: bool = False
    free_starts: int = 0
    cost: int = 0
    said: list[str] = field(default_factory=list)


def _fail(code: str, message: str, i: int | None, step: object, action: str) -> RulesError:
    quote = step.quote() if i is not None and hasattr(step, "quote") else None
    return RulesError(code, message, step=i, action=action, quote=quote)


def carry_out(state: State, seat: str, steps: list[object]) -> tuple[State, list[Event]]:
    """Apply ``seat``'s steps to a copy of ``state``; raise :class:`RulesError` at the first illegal
    one. Returns the new state (before any refill or station check) and the events so far."""
    _may_act(state, seat)
    if not steps:
        raise RulesError("turn.empty", T_("a turn is one action, Plant or Surface; passing is not allowed"))
    work, pl, events = begun(state, seat, steps)
    if pl is None:
        return work, events
    return work, _finish_plant(work, seat, pl, events)


def _may_act(state: State, seat: str) -> None:
    if state.over:
        raise RulesError("turn.game_over", T_("the game is over"))
    if seat != state.seat:
        raise RulesError(
            "turn.not_yours", T_("it is {active}'s turn, not {seat}'s", active=state.seat, seat=seat)
        )


def begun(state: State, seat: str, steps: list[object]) -> tuple[State, Planting | None, list[Event]]:
    """The turn so far: ``steps`` applied to a copy of ``state``, raising :class:`RulesError` at the
    first illegal one but not for what is still missing (a line, tiles in hand). The Planting is None
    when the steps are a Surface (a whole action by itself)."""
    _may_act(state, seat)
    work = state.copy()
    surfaces = [i for i, s in enumerate(steps) if isinstance(s, Surface)]
    if surfaces:
        if len(steps) > 1:
            # the first step that makes a second action: a later surface, or whatever follows one
            i = surfaces[0] or 1
            raise _fail(
                "turn.one_action",
                T_(
                    "a turn is exactly one action: Surface stands alone, without plant, place, "
                    "discard or shells"
                ),
                i,
                steps[i],
                ACTION_SURFACE,
            )
        work, events = _surface(work, seat, steps[0])  # type: ignore[arg-type]
        return work, None, events
    pl, events = _plant_steps(work, seat, steps)
    return work, pl, events


# ------------------------------------------------------------------------------------------ surface


def _surface(work: State, seat: str, step: Surface) -> tuple[State, list[Event]]:
    closing: list[int] = []
    for space in step.surface:
        rid = work.reef_at.get(space)
        reef = None if rid is None else work.reefs[rid]
        if reef is None or reef.owner != seat:
            # one whole sentence for each case, so the reef's owner (or none) is said in the reader's words
            if reef is None:
                said = T_("{space} holds no reef, not one of your reefs", space=space)
            elif reef.owner is None:
                said = T_("{space} holds a neutral reef, not one of your reefs", space=space)
            else:
                said = T_(
                    "{space} holds {owner}'s reef, not one of your reefs", space=space, owner=reef.owner
                )
            raise _fail(
                "surface.not_your_reef",
                separated([said, instead.surface(work, seat)]),
                0,
                step,
                ACTION_SURFACE,
            )
        if reef.id in closing:
            raise _fail(
                "surface.same_reef",
                T_("{space} is in a reef you already close", space=space),
                0,
                step,
                ACTION_SURFACE,
            )
        closing.append(reef.id)
    if not closing and work.reefs_of(seat):
        raise _fail(
            "surface.nothing_closed",
            separated([T_("surfacing closes at least one of your reefs"), instead.surface(work, seat)]),
            0,
            step,
            ACTION_SURFACE,
        )
    gained = 0
    said: list[str] = []
    for rid in closing:
        reef = work.reefs[rid]
        pts = scoring.reef_points(work, reef)
        gained += pts
        said.append(_reef_closed(reef.coral, reef.diver, len(reef.cells), pts))
        work.reefs[rid] = replace(reef, owner=None, diver=None)
    divers = work.divers_on_board(seat)
    p = work.players[seat]
    coins = scoring.add_coins(p.coins, scoring.income(divers))
    work.players[seat] = replace(p, points=p.points + gained, coins=coins)
    income = coins - p.coins
    data: dict[str, object] = {"action": "surface", "points": gained, "coins": income}
    if closing:
        text = T_(
            "{seat} surfaced: closed {reefs}; divers home: {divers}; income: {income} (coins now: {coins})",
            seat=seat,
            reefs=listed(said),
            divers=divers,
            income=income,
            coins=coins,
        )
    else:
        # our ruling: a Surface without a reef is no pass, it clears the fullest nursery row
        row = fullest_row(work)
        n = line_cost(work, row)
        for s in line_slots(row):
            work.nursery[s] = None
        work.cleared += n
        text = T_(
            "{seat} surfaced: closed nothing; divers home: {divers}; income: {income} (coins now: {coins}); "
            "{row} of the nursery goes out of the game (tiles: {n})",
            n=n,
            seat=seat,
            divers=divers,
            income=income,
            coins=coins,
            row=line_word(row),
        )
        data["cleared"] = row
    return work, [Event(text, data=data)]


# ------------------------------------------------------------------------------------------ plant


def _plant_steps(work: State, seat: str, steps: list[object]) -> tuple[Planting, list[Event]]:
    p = work.players[seat]
    pl = Planting(usable=Counter(p.shells))
    events: list[Event] = []
    for i, step in enumerate(steps):
        if isinstance(step, Shell):
            _use_shell(work, seat, pl, i, step)
        elif isinstance(step, Plant):
            _take_line(work, seat, pl, i, step)
        elif isinstance(step, Place):
            events += _place(work, seat, pl, i, step)
        elif isinstance(step, Discard):
            n = _taken(work, seat, pl, i, step, step.discard.tile)
            tile = pl.taken[n]
            assert tile is not None
            pl.taken[n] = None
            q = work.players[seat]
            work.players[seat] = replace(
                q, points=q.points - ECONOMY.discard_penalty, discarded=q.discarded + 1
            )
            pl.said.append(
                T_("discarded {tile} (-{penalty})", tile=describe(tile), penalty=ECONOMY.discard_penalty)
            )
    return pl, events


def _finish_plant(work: State, seat: str, pl: Planting, events: list[Event]) -> list[Event]:
    """The Plant's last word: a line was taken and every taken tile placed or discarded (else the
    :data:`MISSING` errors), and the event that tells it."""
    if pl.line is None:
        within = instead.plant_line(affordable_lines(work, seat))
        rule = T_("a Plant takes a nursery line, before the tiles are placed (or surface instead)")
        raise RulesError("plant.no_line", separated([rule, within]) if within else rule, action=ACTION_PLANT)
    left = [n for n, t in enumerate(pl.taken) if t is not None]
    if left:
        may_start = pl.started == 0 or work.new_reefs == "any"
        raise RulesError(
            "plant.tiles_left",
            separated(
                [
                    T_(
                        "every taken tile must be placed or discarded; still in hand: tile {left}",
                        left=listed([str(n + 1) for n in left]),
                    ),
                    *instead.for_tiles(
                        work,
                        seat,
                        [(n + 1, pl.taken[n] or "") for n in left],
                        pl.free_starts,
                        may_start=may_start,
                    ),
                ]
            ),
            action=ACTION_PLANT,
        )
    what = listed(pl.said)
    if pl.discount:
        text = T_(
            "{seat} planted {line} free (discount): {what}", seat=seat, line=line_word(pl.line), what=what
        )
    else:
        text = TN_(
            "{seat} planted {line} for {n} coin: {what}",
            "{seat} planted {line} for {n} coins: {what}",
            pl.cost,
            seat=seat,
            line=line_word(pl.line),
            what=what,
        )
    return [Event(text, data={"action": "plant", "line": pl.line}), *events]


def _taken(work: State, seat: str, pl: Planting, i: int, step: Place | Discard, number: int) -> int:
    if pl.line is None:
        rule = T_("choose a nursery line with 'plant' first")
        within = instead.plant_line(affordable_lines(work, seat))
        raise _fail(
            "place.before_plant", separated([rule, within]) if within else rule, i, step, ACTION_PLANT
        )
    if number > len(pl.taken):
        raise _fail(
            "place.no_such_tile",
            T_("your taken tiles are numbered 1 to {n}", n=len(pl.taken)),
            i,
            step,
            ACTION_PLANT,
        )
    if pl.taken[number - 1] is None:
        raise _fail(
            "place.tile_used",
            T_("tile {number} is already placed or discarded", number=number),
            i,
            step,
            ACTION_PLANT,
        )
    return number - 1


def _take_line(work: State, seat: str, pl: Planting, i: int, step: Plant) -> None:
    line = step.plant.line
    if pl.line is not None:
        raise _fail(
            "plant.twice",
            T_("you already took {line} this turn", line=line_word(pl.line)),
            i,
            step,
            ACTION_PLANT,
        )
    if line not in work.choosable_lines():
        raise _fail(
            "plant.rows_only",
            T_(
                "this game plants rows only (the option 'lines' is 'rows'): choose a row, not {line}",
                line=line_word(line),
            ),
            i,
            step,
            ACTION_PLANT,
        )
    slots = line_slots(line)
    tiles = [work.nursery[s] for s in slots]
    held = [t for t in tiles if t is not None]
    within = instead.plant_line(affordable_lines(work, seat))
    if not held:
        rule = T_("{line} of the nursery holds no tile", line=line_word(line))
        raise _fail(
            "plant.empty_line",
            separated([rule, within]) if within else rule,
            i,
            step,
            ACTION_PLANT,
        )
    cost = 0 if pl.discount else len(held)
    p = work.players[seat]
    if cost > p.coins:
        rule = T_(
            "{line} costs more than you have (tiles: {n}, cost: {cost}, your coins: {coins})",
            line=line_word(line),
            n=len(held),
            cost=cost,
            coins=p.coins,
        )
        raise _fail(
            "plant.cannot_afford",
            separated([rule, within]) if within else rule,
            i,
            step,
            ACTION_PLANT,
        )
    for s in slots:
        work.nursery[s] = None
    work.players[seat] = replace(p, coins=p.coins - cost)
    pl.line, pl.taken, pl.cost = line, [*held, *pl.early], cost


def _use_shell(work: State, seat: str, pl: Planting, i: int, step: Shell) -> None:
    kind = step.kind
    if pl.usable[kind] <= 0:
        raise _fail(
            "shell.not_held",
            T_(
                "you have no unused {kind} shell (a shell taken this turn can be used from your next turn)",
                kind=shell_word(kind),
            ),
            i,
            step,
            ACTION_PLANT,
        )
    p = work.players[seat]
    if kind == "discount":
        if pl.line is not None:
            raise _fail(
                "shell.discount_late",
                T_("a discount must be used before choosing the line"),
                i,
                step,
                ACTION_PLANT,
            )
        if pl.discount:
            raise _fail(
                "shell.discount_twice", T_("a discount is already in use this turn"), i, step, ACTION_PLANT
            )
        pl.discount = True
        said = T_("used a discount shell")
    elif kind == "pearl":
        coins = scoring.add_coins(p.coins, ECONOMY.pearl_coins)
        p = replace(p, coins=coins)
        said = TN_("used a pearl (+{n} coin)", "used a pearl (+{n} coins)", ECONOMY.pearl_coins)
    elif kind == "free-start":
        pl.free_starts += 1
        said = T_("used a free-start shell")
    else:
        assert not isinstance(step.shell, str)
        slot = (step.shell.row - 1) * NURSERY + step.shell.column - 1
        tile = work.nursery[slot]
        if tile is None:
            raise _fail(
                "shell.empty_slot",
                T_("nursery {slot} holds no tile", slot=slot_word(step.shell.row, step.shell.column)),
                i,
                step,
                ACTION_PLANT,
            )
        work.nursery[slot] = None
        if pl.line is None:
            # taken before the line: numbered after the line's tiles once the line is chosen
            pl.early.append(tile)
            said = T_(
                "used an extra-tile shell ({tile} from {slot}, before the line)",
                tile=describe(tile),
                slot=slot_word(step.shell.row, step.shell.column),
            )
        else:
            pl.taken.append(tile)
            said = T_(
                "used an extra-tile shell (tile {number}: {tile} from {slot})",
                number=len(pl.taken),
                tile=describe(tile),
                slot=slot_word(step.shell.row, step.shell.column),
            )
    pl.usable[kind] -= 1
    shells = list(p.shells)
    shells.remove(kind)
    work.players[seat] = replace(p, shells=tuple(shells), used=tuple(sorted((*p.used, kind))))
    pl.said.append(said)


def _place(work: State, seat: str, pl: Planting, i: int, step: Place) -> list[Event]:
    n = _taken(work, seat, pl, i, step, step.place.tile)
    tile = pl.taken[n]
    assert tile is not None
    at = step.place.at
    may_start = pl.started == 0 or work.new_reefs == "any"
    how = board.placement(work, seat, tile, at, pl.free_starts, may_start=may_start)
    if isinstance(how, board.Refusal):
        fix = instead.for_tile(work, seat, n + 1, tile, pl.free_starts, may_start=may_start)
        raise _fail(how.code, separated([how.message, fix]), i, step, ACTION_PLANT)
    if how.starts:
        pl.started += 1
    if how.free_start:
        pl.free_starts -= 1
    reef = board.place(work, seat, tile, at, how)
    pl.taken[n] = None
    notes = board.placement_notes(how, len(reef.cells))
    if notes:
        pl.said.append(T_("{tile} {at} ({notes})", tile=describe(tile), at=at, notes=listed(notes)))
    else:
        pl.said.append(T_("{tile} {at}", tile=describe(tile), at=at))
    token = work.seabed.pop(at, None)
    if token is None:
        return []
    p = work.players[seat]
    if token.startswith("fish-"):
        value = int(token.removeprefix("fish-"))
        work.players[seat] = replace(p, fish=tuple(sorted((*p.fish, value))))
        what = T_("a fish school worth {value}", value=value)
    else:
        work.players[seat] = replace(p, shells=tuple(sorted((*p.shells, token))))
        what = T_("a shell: {shell}", shell=shell_word(token))
    return [
        Event(
            T_("{seat} took the seabed token at {at}: {what}", seat=seat, at=at, what=what),
            data={"token": token, "at": at},
        )
    ]
