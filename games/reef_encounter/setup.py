"""Setting up a game (rules section 2) and resolving the secret setup decision (step 10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.game import Chance, Event, GameError, RulesError, choice, coin, draw_from_counts, shuffled
from pbem.core.i18n import T_, listed

from .data import (
    BOARD_LETTERS,
    BOARDS,
    CORAL_COLOURS,
    LARVAE_PER_COLOUR,
    OPEN_SEA,
    OPENING_POLYPS,
    POLYPS_PER_COLOUR,
    SHRIMP_COLOURS,
    STARTING_POLYPS,
    TILES,
)
from .orders import Setup
from .state import Player, SeaSpace, State, zero
from .words import colour as w
from .words import counts


def turn_order(seats: Sequence[str], first: str) -> list[str]:
    i = list(seats).index(first)
    return list(seats[i:]) + list(seats[:i])


def new_game(seats: Sequence[str], advanced: bool, starting_player: str | None, chance: Chance) -> State:
    """Steps 1-9 of the setup; the state then waits for every seat's setup decision."""
    if starting_player is not None and starting_player not in seats:
        raise GameError(
            "options.starting_player",
            T_(
                "starting_player {starting_player} is not one of the seats {seats}",
                starting_player=starting_player,
                seats=listed(seats),
            ),
        )
    players = {s: Player(s, SHRIMP_COLOURS[i]) for i, s in enumerate(seats)}
    boards = sorted(shuffled(chance, "reef boards", BOARD_LETTERS)[: len(seats)])
    state = State(list(seats), players, advanced, boards)
    pool = dict.fromkeys(CORAL_COLOURS, POLYPS_PER_COLOUR)
    for b in boards:
        for space, colour in BOARDS[b].printed.items():
            state.polyps[space] = colour
            pool[colour] -= 1
    for colour in CORAL_COLOURS:
        state.bonus[colour] = 1
        pool[colour] -= 1
    state.bag = pool
    up = coin(chance, "coral tiles starfish side up")
    state.up = dict.fromkeys(TILES, up)
    state.sea = {name: SeaSpace(True, zero()) for name in OPEN_SEA}
    state.larva_supply = {c: LARVAE_PER_COLOUR - 1 for c in CORAL_COLOURS}
    state.algae_supply = {a: 5 for a in state.algae_supply}
    first = draw_from_counts(chance, "first open-sea space", state.bag)
    start = OPEN_SEA.index(first)
    for k, n in enumerate(OPENING_POLYPS):
        space = state.sea[OPEN_SEA[(start + k) % len(OPEN_SEA)]]
        for _ in range(n):
            c = draw_from_counts(chance, "bag", state.bag)
            state.bag[c] -= 1
            space.polyps[c] += 1
    starter = (
        starting_player if starting_player is not None else choice(chance, "starting player", list(seats))
    )
    for seat, n in zip(turn_order(seats, starter), STARTING_POLYPS[len(seats)], strict=True):
        for _ in range(n):
            c = draw_from_counts(chance, "bag", state.bag)
            state.bag[c] -= 1
            players[seat].screen[c] += 1
    state.active = starter
    state.phase = "setup"
    return state


def setup_problem(state: State, seat: str, step: Setup, index: int = 0) -> None:
    """Raise :class:`RulesError` when the parrotfish polyp or the two larva cubes cannot be taken."""
    choice_ = step.setup
    if state.players[seat].screen[choice_.parrotfish] <= 0:
        raise RulesError(
            "setup.no_polyp",
            T_(
                "you have no {colour} polyp behind your screen for your parrotfish",
                colour=w(choice_.parrotfish),
            ),
            step=index,
            action=T_("setup"),
            quote=step.quote(),
        )
    for colour in set(choice_.larvae):
        # each seat's two cubes come from a supply of 9 per colour; eight is the most four seats can take
        if choice_.larvae.count(colour) > state.larva_supply[colour]:
            raise RulesError(
                "setup.supply",
                T_("the supply has too few {colour} larva cubes", colour=w(colour)),
                step=index,
            )


def resolve_setup(state: State, orders: Mapping[str, Setup]) -> list[Event]:
    """Every seat's polyp goes into its parrotfish; the larva colours become public."""
    events: list[Event] = []
    for seat in turn_order(state.seats, state.active):
        c = orders[seat].setup
        p = state.players[seat]
        p.screen[c.parrotfish] -= 1
        p.parrotfish[c.parrotfish] += 1
        for colour in c.larvae:
            state.larva_supply[colour] -= 1
            p.larvae[colour] += 1
        first, second = c.larvae  # the order's shape says two
        events.append(
            Event(
                T_(
                    "{seat} took larva cubes: {first} and {second}",
                    seat=seat,
                    first=w(first),
                    second=w(second),
                )
            )
        )
        events.append(
            Event(T_("you fed one {colour} polyp to your parrotfish", colour=w(c.parrotfish)), to=seat)
        )
        events.append(Event(T_("polyps behind your screen: {polyps}", polyps=counts(p.screen)), to=seat))
    state.phase = "play"
    events.append(Event(T_("{seat} starts", seat=state.active)))
    return events
