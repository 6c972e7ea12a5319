"""One player's turn: the ten actions of rules section 3 with every order constraint, step by step.

:class:`TurnRunner` carries out a list of steps on a state it owns (the caller passes a copy) and raises
:class:`pbem.core.game.RulesError` at the first illegal step, naming the step, the action and the rule. The
same code serves ``check`` (with a chance that is never consulted before the last step) and ``resolve``,
so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.core.game import Chance, Event, RulesError
from pbem.core.i18n import T_, TN_, Text, join_texts, series

from . import orders as o
from .data import BOARDS, NEIGHBOURS, SHRIMP_PER_PLAYER, TILES
from .reef import (
    any_legal_placement,
    board_in_play,
    coral,
    is_sand,
    placement_problem,
    put_polyp,
    shrimp_on,
    shrimp_on_board,
)
from .sea import algae_problem, feed, feed_problem, play_algae, take, take_problem
from .state import State
from .words import colour as w

MAX_SHRIMP_PER_BOARD = 2
#: end condition 3: met in the middle of a turn, it ends the game there (the ruling of issue 34)
NO_PLACEMENT = "no polyp can be placed anywhere"


class NoChance:
    """The chance for checking orders: a turn draws only in its last step (the refill after action 10),
    and no legality question depends on what is drawn there, so any answer will do."""

    def pick(self, label: str, n: int) -> int:
        return 0


class TurnRunner:
    """Carries out one seat's normal turn on ``state`` (changed in place)."""

    def __init__(self, state: State, seat: str, chance: Chance) -> None:
        self.state = state
        self.seat = seat
        self.player = state.players[seat]
        self.chance = chance
        self.events: list[Event] = []
        self.done: set[str] = set()
        #: the larva action under way ("2" or "3") while its polyps may still be placed
        self.larva_action: str | None = None
        self.larva_colour = ""
        self.from_screen = 0
        self.placed: list[str] = []
        self.announced = False
        self.locked = False
        #: set when the game ended during the turn (conditions 1, 2, 3 or 4)
        self.ended = ""
        #: whether the end came from condition 1 or 2, which grants the others a final feeding turn
        self.final_turns = False
        #: (index, step) of the orders written after condition 3 ended the game: accepted, not played
        self.unplayed: list[tuple[int, o.Step]] = []
        self.index = 0
        self.step: o.Step | None = None

    # ------------------------------------------------------------------------------------- plumbing

    def fail(self, code: str, message: str, action: str | None = None) -> RulesError:
        step = self.step
        keyword = step.keyword if step is not None else ""
        act = action or (self.larva_action if keyword == "place" and self.larva_action else o.ACTION[keyword])
        return RulesError(code, message, step=self.index, action=act, quote=step.quote() if step else None)

    def say(self, text: str) -> None:
        self.events.append(Event(text))

    def flush_larva(self, closing: bool = True) -> None:
        """Write the event of the larva action so far (a shrimp move may interrupt it: then only what
        was placed before it is told, and the larva is told with its first polyps)."""
        if self.larva_action is None or (not self.placed and (self.announced or not closing)):
            return
        n, seat, colour, spaces = len(self.placed), self.seat, w(self.larva_colour), series(self.placed)
        if self.announced:
            self.say(
                TN_(
                    "{seat} placed {n} more {colour} polyp: {spaces}",
                    "{seat} placed {n} more {colour} polyps: {spaces}",
                    n,
                    seat=seat,
                    colour=colour,
                    spaces=spaces,
                )
            )
        elif n:
            self.say(
                TN_(
                    "{seat} played their {colour} larva cube and {n} polyp: {spaces}",
                    "{seat} played their {colour} larva cube and {n} polyps: {spaces}",
                    n,
                    seat=seat,
                    colour=colour,
                    spaces=spaces,
                )
            )
        else:
            self.say(T_("{seat} played their {colour} larva cube and no polyp", seat=seat, colour=colour))
        self.announced = True
        self.placed = []

    def close_larva(self) -> None:
        """Every action but 5 finishes the larva action under way."""
        self.flush_larva()
        if self.larva_action is not None:
            self.done.add(self.larva_action)
            self.larva_action = None

    def fork(self) -> TurnRunner:
        """A copy of this turn so far, on a copy of the state (the bot tries steps on forks)."""
        other = TurnRunner(self.state.clone(), self.seat, self.chance)
        keep = {"state", "player", "done", "placed", "events"}
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k not in keep})
        other.done, other.placed, other.events = set(self.done), list(self.placed), list(self.events)
        return other

    def apply(self, index: int, step: o.Step) -> None:
        """Carry out ``step``, the ``index``-th of the orders; raises :class:`RulesError`."""
        self.index, self.step = index, step
        if self.ended:
            raise self.fail(
                "turn.game_over", T_("the game ended at orders[{step}]; nothing may follow", step=index - 1)
            )
        if "10" in self.done:
            raise self.fail("take.not_last", T_("taking from the open sea (action 10) ends the turn"))
        getattr(self, "do_" + step.keyword)(step)
        # condition 3 is checked after every step: the turn stops at the step that causes it (no
        # action 10, no final turns)
        if not self.ended and not any_legal_placement(self.state):
            self.ended = NO_PLACEMENT

    def run(self, steps: Sequence[o.Step]) -> None:
        """Carry out a whole turn, end-of-turn checks included; raises :class:`RulesError`.

        The ruling on condition 3: a player cannot know before the turn that a step will leave no polyp
        placeable, so the steps written after it (the ``take`` every turn ends with among them) are
        accepted and not played, rather than the orders refused and the turn lost."""
        for i, step in enumerate(steps):
            if self.ended == NO_PLACEMENT:
                self.unplayed = list(enumerate(steps))[i:]
                break
            self.apply(i, step)
        self.step = None
        self.index = len(steps)
        self.finish()

    def finish(self) -> None:
        self.close_larva()
        if not self.ended and "10" not in self.done:
            raise RulesError(
                "take.missing",
                T_("every turn ends with action 10: take a larva cube and its polyps from the open sea"),
                action="10",
            )
        on_rock = sorted(
            s for s, owner in self.state.shrimp.items() if owner == self.seat and s not in self.state.polyps
        )
        if on_rock:
            raise RulesError(
                "shrimp.on_rock",
                T_(
                    "at the end of your turn no shrimp may stay on empty rock ({spaces}): "
                    "move it onto a polyp or behind your screen",
                    spaces=", ".join(on_rock),
                ),
                action="5",
            )
        if not self.ended and not any_legal_placement(self.state):
            self.ended = NO_PLACEMENT

    def unplayed_event(self) -> Event | None:
        """The public word of which steps the end of the game left unplayed, if any."""
        if not self.unplayed:
            return None
        steps = series([f"orders[{i}] ({step.quote()})" for i, step in self.unplayed])
        return Event(
            TN_(
                "the game ended before {seat}'s last step, which was not played: {steps}",
                "the game ended before {seat}'s last {n} steps, which were not played: {steps}",
                len(self.unplayed),
                seat=self.seat,
                steps=steps,
            )
        )

    # ------------------------------------------------------------------------------------- actions

    def do_feed(self, step: o.Feed) -> None:
        if self.index != 0:
            raise self.fail(
                "feed.not_first", T_("feeding your parrotfish (action 1) must be the first action")
            )
        problem = feed_problem(self.state, self.seat, step.feed)
        if problem:
            raise self.fail(*problem)
        self.done.add("1")
        self.say(feed(self.state, self.seat, step.feed, final=False))
        if self.player.feedings >= SHRIMP_PER_PLAYER:
            self.ended = f"{self.seat} fed their fourth coral"
            self.final_turns = True

    def do_larva(self, step: o.Larva) -> None:
        self.close_larva()
        if "2" not in self.done:
            action = "2"
        elif "3" not in self.done:
            action = "3"
        else:
            raise self.fail(
                "larva.third", T_("you have already played two larva cubes (actions 2 and 3)"), "3"
            )
        colour = step.larva
        if self.player.larvae[colour] <= 0:
            raise self.fail(
                "larva.none",
                T_("you have no {colour} larva cube behind your screen", colour=w(colour)),
                action,
            )
        self.player.larvae[colour] -= 1
        self.state.larva_supply[colour] += 1
        self.larva_action, self.larva_colour, self.from_screen = action, colour, 0
        self.announced = False

    def do_place(self, step: o.Place) -> None:
        if self.larva_action is None:
            raise self.fail(
                "place.no_larva",
                T_("polyps are placed only right after playing a larva cube (larva: …)"),
                "2",
            )
        colour, at, p = self.larva_colour, step.at, self.player
        if step.from_front:
            if p.front[colour] <= 0:
                raise self.fail(
                    "place.no_eaten",
                    T_("you have no eaten {colour} polyp in front of your screen", colour=w(colour)),
                )
        else:
            if self.from_screen >= 4:
                raise self.fail("place.limit", T_("at most 4 polyps from behind your screen per larva cube"))
            if p.screen[colour] <= 0:
                raise self.fail(
                    "place.no_polyp", T_("you have no {colour} polyp behind your screen", colour=w(colour))
                )
        problem = placement_problem(self.state, at, colour)
        if problem:
            raise self.fail(*problem)
        if step.from_front:
            p.front[colour] -= 1
        else:
            p.screen[colour] -= 1
            self.from_screen += 1
        eaten, grew = put_polyp(self.state, at, colour, self.seat)
        notes: list[Text] = []
        if step.from_front:
            notes.append(T_("an eaten polyp"))
        if eaten:
            notes.append(T_("attack, ate {colour}", colour=w(eaten)))
        if grew:
            notes.append(T_("extra growth on {space}", space=BOARDS[at[0]].starfish))
        # Translators: a space a polyp was placed on and what happened there ("Ae3 (attack, ate white)")
        self.placed.append(T_("{space} ({notes})", space=at, notes=join_texts(notes, "; ")) if notes else at)

    def do_shrimp(self, step: o.NewShrimp) -> None:
        self.close_larva()
        if "4" in self.done:
            raise self.fail("shrimp.twice", T_("you may bring in only one new shrimp per turn (action 4)"))
        if self.player.shrimp <= 0:
            raise self.fail("shrimp.none_left", T_("you have no shrimp behind your screen"))
        problem = self.landing_problem(step.shrimp, None)
        if problem:
            raise self.fail(*problem)
        if step.shrimp not in self.state.polyps:
            raise self.fail(
                "shrimp.not_on_polyp",
                T_("a new shrimp goes onto a polyp; {space} has none", space=step.shrimp),
            )
        self.player.shrimp -= 1
        self.state.shrimp[step.shrimp] = self.seat
        self.done.add("4")
        self.say(T_("{seat} put a new shrimp on {space}", seat=self.seat, space=step.shrimp))

    def landing_problem(self, space: str, origin: str | None) -> tuple[str, str] | None:
        """Why one of our shrimp may not go onto ``space`` (coming from ``origin``, or the screen)."""
        state = self.state
        if not board_in_play(state, space):
            return "space.not_in_play", T_("reef board {board} is not in this game", board=space[0])
        if is_sand(space) or space not in NEIGHBOURS:
            return "shrimp.deep_sand", T_("{space} is deep sand", space=space)
        if space in state.shrimp:
            return "shrimp.occupied", T_("a shrimp already stands on {space}", space=space)
        if space in state.polyps:
            c = coral(state, space)
            other = shrimp_on(state, c - {origin} if origin else c)
            if other is not None:
                return (
                    "shrimp.coral_has_shrimp",
                    T_(
                        "the coral at {space} already carries a shrimp (on {other})", space=space, other=other
                    ),
                )
        if (origin is None or origin[0] != space[0]) and shrimp_on_board(
            state, self.seat, space[0]
        ) >= MAX_SHRIMP_PER_BOARD:
            return "shrimp.board_limit", T_(
                "you already have two shrimp on reef board {board}", board=space[0]
            )
        return None

    def do_move_shrimp(self, step: o.MoveShrimp) -> None:
        self.flush_larva(closing=False)  # action 5 may interrupt a larva action without ending it
        src, dst = step.move_shrimp.from_, step.move_shrimp.to
        if self.state.shrimp.get(src) != self.seat:
            raise self.fail("move_shrimp.not_yours", T_("you have no shrimp on {src}", src=src))
        if dst == src:
            raise self.fail("move_shrimp.same_space", T_("a shrimp must move somewhere else"))
        if dst == "screen":
            del self.state.shrimp[src]
            self.player.shrimp += 1
            self.say(T_("{seat} took their shrimp on {src} back behind the screen", seat=self.seat, src=src))
            return
        problem = self.landing_problem(dst, src)
        if problem:
            raise self.fail(*problem)
        del self.state.shrimp[src]
        self.state.shrimp[dst] = self.seat
        if dst in self.state.polyps:
            self.say(T_("{seat} moved their shrimp from {src} to {dst}", seat=self.seat, src=src, dst=dst))
        else:
            self.say(
                T_(
                    "{seat} moved their shrimp from {src} to {dst} (empty rock)",
                    seat=self.seat,
                    src=src,
                    dst=dst,
                )
            )

    def do_larva_for_polyp(self, step: o.LarvaForPolyp) -> None:
        self.close_larva()
        colour = step.larva_for_polyp
        if self.player.front[colour] <= 0:
            raise self.fail(
                "exchange.no_eaten",
                T_("you have no eaten {colour} polyp in front of your screen", colour=w(colour)),
            )
        if self.state.larva_supply[colour] <= 0:
            raise self.fail(
                "exchange.no_larva", T_("the supply has no {colour} larva cube left", colour=w(colour))
            )
        self.player.front[colour] -= 1
        self.state.bag[colour] += 1
        self.state.larva_supply[colour] -= 1
        self.player.larvae[colour] += 1
        self.say(
            T_(
                "{seat} exchanged an eaten {colour} polyp for one {colour} larva cube",
                seat=self.seat,
                colour=w(colour),
            )
        )

    def do_algae(self, step: o.Algae) -> None:
        self.close_larva()
        a = step.algae
        problem = algae_problem(self.state, self.seat, a.pay, a.colour, a.to, self.locked)
        if problem:
            raise self.fail(*problem)
        self.say(play_algae(self.state, self.seat, a.pay, a.colour, a.to))
        if a.to != "space":
            self.locked = True
            if len(self.state.locks) == len(TILES):
                self.ended = "every coral tile is locked by an alga"
                self.final_turns = True

    def do_polyp_for_larva(self, step: o.PolypForLarva) -> None:
        self.close_larva()
        colour = step.polyp_for_larva
        if self.player.larvae[colour] <= 0:
            raise self.fail(
                "exchange.no_larva_cube",
                T_("you have no {colour} larva cube behind your screen", colour=w(colour)),
            )
        if self.state.bag[colour] <= 0:
            raise self.fail("exchange.bag", T_("the bag holds no {colour} polyp", colour=w(colour)))
        self.player.larvae[colour] -= 1
        self.state.larva_supply[colour] += 1
        self.state.bag[colour] -= 1
        self.player.screen[colour] += 1
        self.say(
            T_(
                "{seat} exchanged one {colour} larva cube for one {colour} polyp from the bag",
                seat=self.seat,
                colour=w(colour),
            )
        )

    def do_pass(self, step: o.Pass) -> None:
        self.close_larva()

    def do_take(self, step: o.Take) -> None:
        self.close_larva()
        problem = take_problem(self.state, step.take)
        if problem:
            raise self.fail(*problem)
        text, refill, ended = take(self.state, self.seat, step.take, self.chance)
        self.done.add("10")
        self.say(text)
        self.say(refill)
        if ended:
            self.ended = "the open sea could not be refilled or the bag holds fewer than 3 polyps"


def final_feeding(state: State, seat: str, step: o.Step) -> list[Event]:
    """A final feeding turn (section 9): feed one coral returning 5 (advanced 6) polyps, or pass."""
    if isinstance(step, o.Pass):
        return [Event(T_("{seat} passed their final feeding turn", seat=seat))]
    if not isinstance(step, o.Feed):
        raise RulesError("final.step", T_("a final feeding turn is feed: … or pass"), step=0)
    problem = feed_problem(state, seat, step.feed)
    if problem:
        raise RulesError(*problem, step=0, action="1", quote=step.quote())
    return [Event(feed(state, seat, step.feed, final=True))]
