"""Orders by clicking: the steps the rules allow a seat next, given the steps it has chosen so far.

Every choice is tried on a fork of the very :class:`TurnRunner` that judges orders, so the guide and
``check`` cannot disagree about a step. The guide sees what the seat sees: action 8 (a larva cube for a
polyp from the bag) is offered only when the seat can tell that the bag holds a polyp of that colour
(the bag's colours are hidden; its size is not), so a choice never depends on a secret.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement
from typing import Any

from pbem.core.game import JSON, NextSteps, RulesError, StepChoice
from pbem.core.i18n import T_, Text

from . import orders as o
from .data import BOARDS, CORAL_COLOURS, OPEN_SEA, TILES
from .reef import placement_refused
from .sea import algae_problem, bag_surely_holds, feed_problem, take_problem
from .state import State
from .turn import NO_PLACEMENT, NoChance, TurnRunner
from .words import colour as w
from .words import tile as tile_word


def next_steps(game: Any, state: State, seat: str, chosen: Sequence[JSON]) -> NextSteps:
    """What :meth:`pbem.core.game.StepGuide.next_steps` answers for Reef Encounter."""
    decision = game.pending(state).get(seat)
    if decision is None:
        raise RulesError("turn.not_pending", T_("no orders are due from {seat} now", seat=seat))
    steps: list[o.Step] = game._steps(state, seat, list(chosen))[1] if chosen else []
    if decision.kind == "setup":
        return _setup(game, state, seat, steps)
    if decision.kind == "final_feeding":
        return _final(game, state, seat, steps)
    return _turn(state, seat, steps)


def _choice(step: o.Step, label: Text) -> StepChoice:
    data = step.model_dump(mode="json", by_alias=True)
    return StepChoice(step="pass" if data == {"pass": None} else data, keyword=step.keyword, label=label)


def _setup(game: Any, state: State, seat: str, steps: list[o.Step]) -> NextSteps:
    if steps:
        game.check(state, seat, o.SetupOrders.model_validate([s.model_dump(by_alias=True) for s in steps]))
        return NextSteps(choices=[], complete=True)
    screen = state.players[seat].screen
    choices = []
    for fish in CORAL_COLOURS:
        if screen[fish] <= 0:
            continue
        for pair in combinations_with_replacement(CORAL_COLOURS, 2):
            if any(pair.count(c) > state.larva_supply[c] for c in pair):
                continue
            step = o.Setup(setup=o.SetupChoice(parrotfish=fish, larvae=list(pair)))
            label = T_(
                "put one {fish} polyp into your parrotfish and take larva cubes: {first} and {second}",
                fish=w(fish),
                first=w(pair[0]),
                second=w(pair[1]),
            )
            choices.append(_choice(step, label))
    return NextSteps(choices=choices, complete=False)


def _final(game: Any, state: State, seat: str, steps: list[o.Step]) -> NextSteps:
    if steps:
        game.check(
            state, seat, o.FinalFeedingOrders.model_validate([s.model_dump(by_alias=True) for s in steps])
        )
        return NextSteps(choices=[], complete=True)
    choices = [_choice(o.Feed(feed=s), _feed_label(state, s)) for s in _feedable(state, seat)]
    choices.append(_choice(o.Pass(pass_=None), T_("pass your final feeding turn")))
    return NextSteps(choices=choices, complete=False)


def _feedable(state: State, seat: str) -> list[str]:
    """The space of each of ``seat``'s shrimp whose coral may be fed now: one choice per coral."""
    return sorted(
        s for s, owner in state.shrimp.items() if owner == seat and feed_problem(state, seat, s) is None
    )


def _feed_label(state: State, space: str) -> Text:
    return T_(
        "feed the {colour} coral at {space} to your parrotfish", colour=w(state.polyps[space]), space=space
    )


def _turn(state: State, seat: str, steps: list[o.Step]) -> NextSteps:
    runner = TurnRunner(state.clone(), seat, NoChance())
    for i, step in enumerate(steps):
        if runner.ended == NO_PLACEMENT:
            break  # the game ended mid-turn: what follows is accepted and not played (TurnRunner.run)
        runner.apply(i, step)
    complete = _finishes(runner)
    if runner.ended or "10" in runner.done:
        return NextSteps(choices=[], complete=complete)
    index = len(steps)
    choices = [_choice(step, label) for step, label in _tried(runner, index, _proposals(runner, index))]
    return NextSteps(choices=choices, complete=complete)


def _finishes(runner: TurnRunner) -> bool:
    """Whether the turn so far may be sent as it is (the end-of-turn rules hold)."""
    fork = runner.fork()
    try:
        fork.finish()
    except RulesError:
        return False
    return True


def _tried(
    runner: TurnRunner, index: int, proposals: Iterator[tuple[o.Step, Text]]
) -> Iterator[tuple[o.Step, Text]]:
    """The proposals the runner accepts, and after which the turn can still be finished."""
    for step, label in proposals:
        fork = runner.fork()
        try:
            fork.apply(index, step)
        except RulesError:
            continue
        if fork.ended and not _finishes(fork):
            continue  # the game would end with one of our shrimp left on empty rock
        if isinstance(step, o.Take) and not _finishes(fork):
            continue  # a take is last: a shrimp on empty rock must move first
        yield step, label


def _rock(state: State) -> list[str]:
    return sorted(s for b in state.boards for s in BOARDS[b].rock)


def _proposals(runner: TurnRunner, index: int) -> Iterator[tuple[o.Step, Text]]:
    """Every step the rules might allow now, cheaply pre-filtered; :func:`_tried` decides."""
    state, seat, p = runner.state, runner.seat, runner.player
    if index == 0:
        for space in _feedable(state, seat):
            yield o.Feed(feed=space), _feed_label(state, space)
    larvae_played = len({"2", "3"} & runner.done) + (runner.larva_action is not None)
    if larvae_played < 2:
        action = "2" if larvae_played == 0 else "3"
        for c in CORAL_COLOURS:
            if p.larvae[c] > 0:
                yield (
                    o.Larva(larva=c),
                    T_("play one {colour} larva cube (action {action})", colour=w(c), action=action),
                )
    yield from _placements(runner)
    mine = sorted(s for s, owner in state.shrimp.items() if owner == seat)
    if "4" not in runner.done and p.shrimp > 0:
        for space in sorted(state.polyps):
            if space not in state.shrimp and runner.landing_problem(space, None) is None:
                yield o.NewShrimp(shrimp=space), T_("put a new shrimp on {space} (action 4)", space=space)
    for src in mine:
        yield (
            o.MoveShrimp(move_shrimp=o.ShrimpMove(from_=src, to="screen")),
            T_("take your shrimp on {src} back behind your screen (action 5)", src=src),
        )
        for dst in _rock(state):
            if dst != src and runner.landing_problem(dst, src) is None:
                label = T_("move your shrimp from {src} to {dst} (action 5)", src=src, dst=dst)
                yield o.MoveShrimp(move_shrimp=o.ShrimpMove(from_=src, to=dst)), label
    for c in CORAL_COLOURS:
        if p.front[c] > 0 and state.larva_supply[c] > 0:
            label = T_("exchange an eaten {colour} polyp for one {colour} larva cube (action 6)", colour=w(c))
            yield o.LarvaForPolyp(larva_for_polyp=c), label
    yield from _algae(runner)
    yield from _bag_exchanges(runner)
    yield o.Pass(pass_=None), T_("pass (action 9)")
    for space in OPEN_SEA:
        if take_problem(state, space) is None:
            label = T_("take the {colour} open-sea space and end your turn (action 10)", colour=w(space))
            yield o.Take(take=space), label


def _placements(runner: TurnRunner) -> Iterator[tuple[o.Step, Text]]:
    if runner.larva_action is None:
        return
    state, c, p = runner.state, runner.larva_colour, runner.player
    spaces = [s for s in _rock(state) if placement_refused(state, s, c) is None]
    if p.screen[c] > 0 and runner.from_screen < 4:
        for s in spaces:
            yield o.Place(place=s), T_("place one {colour} polyp on {space}", colour=w(c), space=s)
    if p.front[c] > 0:
        for s in spaces:
            label = T_(
                "place one {colour} polyp on {space} (from the front of your screen)", colour=w(c), space=s
            )
            yield o.Place(place=o.PlaceFrom(at=s, from_="front")), label


def _algae(runner: TurnRunner) -> Iterator[tuple[o.Step, Text]]:
    state, seat, p = runner.state, runner.seat, runner.player
    for pay in CORAL_COLOURS:
        if p.front[pay] <= 0:
            continue
        for colour, left in sorted(state.algae_supply.items()):
            if left <= 0:
                continue
            label = T_(
                "pay an eaten {pay} polyp for one {colour} alga on the algae space (action 7)",
                pay=w(pay),
                colour=w(colour),
            )
            yield o.Algae(algae=o.AlgaePlay(pay=pay, colour=colour, to="space")), label
            for tile in sorted(TILES):
                if algae_problem(state, seat, pay, colour, tile, runner.locked) is None:
                    label = T_(
                        "pay an eaten {pay} polyp for one {colour} alga locking coral tile {tile} (action 7)",
                        pay=w(pay),
                        colour=w(colour),
                        tile=tile_word(tile),
                    )
                    yield o.Algae(algae=o.AlgaePlay(pay=pay, colour=colour, to=tile)), label


def _bag_exchanges(runner: TurnRunner) -> Iterator[tuple[o.Step, Text]]:
    """Action 8 for a larva cube the seat holds, when it can tell the bag holds that colour."""
    state, p = runner.state, runner.player
    for c in CORAL_COLOURS:
        if p.larvae[c] > 0 and bag_surely_holds(state, runner.seat, c):
            label = T_(
                "exchange one {colour} larva cube for one {colour} polyp from the bag (action 8)", colour=w(c)
            )
            yield o.PolypForLarva(polyp_for_larva=c), label
