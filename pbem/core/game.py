"""The contract between the host and a game.

A game is a pure rules engine: state in, orders in, new state and events out. It never touches the
database, mail, files, the clock or :mod:`random`. The host finds games through the ``pbem.games``
entry-point group; each entry point names one object that satisfies :class:`Game`.

Everything a game needs from the outside world arrives through its arguments:

- randomness through a :class:`Chance` (the host derives it from the game seed and the turn number and
  records every outcome, so a replay, or an import of a game played elsewhere, reproduces each draw);
- orders as validated pydantic models (the game's own :meth:`Game.order_model`).

>>> from pbem.core.game import RulesError
>>> err = RulesError("attack.protected", "the polyp on Bd5 is protected by green's shrimp", step=3,
...                  action="2", quote="place: Bd5")
>>> str(err)
"orders[3] (place: Bd5): action 2: the polyp on Bd5 is protected by green's shrimp [attack.protected]"
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from pbem.core.i18n import _

T = TypeVar("T")

#: JSON-compatible data: what states, views and events are made of once dumped.
JSON = Any


# --------------------------------------------------------------------------------------------- errors


class GameError(Exception):
    """Base of every error a game raises on purpose. ``code`` is stable; ``message`` is for players,
    in the reader's language: an engine writes it with ``pbem.core.i18n.T_`` (message and parameters) and
    it is translated each time it is read, in the current language (:func:`pbem.core.i18n.language`)."""

    kind: ClassVar[str] = "error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.text = message  # as the engine wrote it: English, perhaps a pbem.core.i18n.Text

    @property
    def message(self) -> str:
        return _(self.text)

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


class RulesError(GameError):
    """An order that the rules forbid.

    ``step`` is the 0-based index into the player's ``orders`` list (``None`` when the fault is the
    turn as a whole, e.g. a missing mandatory action), ``action`` the rulebook's name or number for
    the action, ``quote`` the step as the player wrote it.
    """

    kind = "rules"

    def __init__(
        self,
        code: str,
        message: str,
        *,
        step: int | None = None,
        action: str | None = None,
        quote: str | None = None,
    ) -> None:
        super().__init__(code, message)
        self.step = step
        self.action = action
        self.quote = quote

    def where(self) -> str:
        """``orders[3] (place: Bd5)``, or ``orders`` for the turn as a whole."""
        if self.step is None:
            return "orders"
        return f"orders[{self.step}]" + (f" ({self.quote})" if self.quote else "")

    def __str__(self) -> str:
        action = f"action {self.action}: " if self.action else ""
        return f"{self.where()}: {action}{self.message} [{self.code}]"


class ScriptExhausted(GameError):
    """A scripted :class:`Chance` was asked for more outcomes than were recorded."""

    kind = "chance"


# --------------------------------------------------------------------------------------------- chance


class Chance(Protocol):
    """Where every random outcome comes from.

    All draws reduce to :meth:`pick`: an index in ``range(n)``. The host's implementations record
    ``(label, n, outcome)`` triples; a scripted one answers from such a record. ``label`` says what
    is drawn ("bag", "coin toss") so a record can be read and checked.
    """

    def pick(self, label: str, n: int) -> int:
        """An index in ``range(n)``; ``n`` must be at least 1."""
        ...


@runtime_checkable
class ChanceByFace(Protocol):
    """A :class:`Chance` that is also told what each outcome *is* (its face: a colour, a tile, a seat):
    a record written from what came out of the bag answers by face (:class:`pbem.core.chance.Script`)."""

    def pick_face(self, label: str, faces: Sequence[str]) -> int:
        """An index in ``range(len(faces))``; ``faces[i]`` names outcome ``i`` (equal faces are alike)."""
        ...


def pick_face(chance: Chance, label: str, n: int, faces: Callable[[], Sequence[str]]) -> int:
    """``chance.pick(label, n)``, telling a chance that reads draws by face what each outcome is. The
    faces are made only for such a chance, so a game's own draws cost nothing more."""
    if isinstance(chance, ChanceByFace):
        return chance.pick_face(label, faces())
    return chance.pick(label, n)


def choice(chance: Chance, label: str, items: Sequence[T], face: Callable[[T], str] = str) -> T:
    """One item of ``items``, drawn by ``chance``; ``face`` names an item as a record writes it."""
    return items[pick_face(chance, label, len(items), lambda: [face(x) for x in items])]


def shuffled(chance: Chance, label: str, items: Sequence[T], face: Callable[[T], str] = str) -> list[T]:
    """A new list holding ``items`` in an order drawn by ``chance`` (Fisher-Yates). Each draw picks the
    item for the last place not yet filled, so a record names the items from the last place to the
    second (the first place holds the one left)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = pick_face(chance, label, i + 1, lambda i=i: [face(x) for x in out[: i + 1]])  # type: ignore[misc]
        out[i], out[j] = out[j], out[i]
    return out


def coin(chance: Chance, label: str) -> bool:
    """A fair coin toss; a record writes it ``yes`` or ``no``."""
    return pick_face(chance, label, 2, lambda: ["no", "yes"]) == 1


def draw_from_counts(chance: Chance, label: str, counts: Mapping[str, int]) -> str:
    """One item from a bag held as ``{kind: count}``, each physical piece equally likely; a record
    writes the kind drawn.

    Kinds are taken in sorted order so the outcome depends only on the counts.
    """
    total = sum(counts.values())
    if total <= 0:
        raise ValueError(f"draw from an empty {label}")
    k = pick_face(
        chance, label, total, lambda: [kind for kind in sorted(counts) for _ in range(counts[kind])]
    )
    for kind in sorted(counts):
        if k < counts[kind]:
            return kind
        k -= counts[kind]
    raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Decision:
    """What one seat owes now.

    ``kind`` is the game's own name for the decision (``"turn"``, ``"setup"``, ``"company"``);
    ``prompt`` says it in a sentence for the report ("Your turn: up to three actions.").
    """

    kind: str
    prompt: str


@dataclass(frozen=True)
class Event:
    """Something that happened, in words.

    ``text`` is shown in reports. ``to`` is ``None`` for a public event, or the one seat that may
    see it (e.g. "you drew 2 grey polyps"). ``data`` is machine-readable detail under the same
    visibility.
    """

    text: str
    to: str | None = None
    data: Mapping[str, JSON] = field(default_factory=dict)
    #: fills the ``{name}`` placeholders of ``text``, which is then a message (marked with ``N_``)
    #: translated for each reader by :meth:`words`
    params: Mapping[str, JSON] = field(default_factory=dict)

    def visible_to(self, seat: str | None) -> bool:
        return self.to is None or self.to == seat

    def words(self) -> str:
        """``text`` in the current language (:mod:`pbem.core.i18n`), its placeholders filled."""
        return _(self.text, **self.params)


@dataclass(frozen=True)
class Outcome:
    """The end of a game, as a value.

    ``scores`` maps each seat to its final points; ``places`` to its place (1 = winner; tied seats
    share a place); ``reason`` says why the game ended; ``tie_breaks`` explains how ties were broken,
    for the final report.
    """

    reason: str
    scores: Mapping[str, int]
    places: Mapping[str, int]
    tie_breaks: Sequence[str] = ()

    def ranking(self) -> list[str]:
        return sorted(self.places, key=lambda seat: (self.places[seat], seat))


@dataclass(frozen=True)
class Resolution:
    """What :meth:`Game.resolve` returns: the new state and what happened."""

    state: Any
    events: Sequence[Event]


# --------------------------------------------------------------------------------------------- the game


@runtime_checkable
class Game(Protocol):
    """A rules engine, as the host sees it.

    Fixed facts are attributes; everything else is a pure function of its arguments. ``resolve``
    never changes its input state.
    """

    #: the id used on the command line and in order files' schema: ``reef-encounter``
    name: str
    #: the title shown to people: ``Reef Encounter``
    title: str
    #: engine version; stored with every game and archive, bumped when the rules code changes results
    version: str
    min_players: int
    max_players: int
    #: pydantic model of the options accepted at ``pbem new --option k=v`` (all fields defaulted)
    options_model: type[BaseModel]

    def setup(self, seats: Sequence[str], options: BaseModel, chance: Chance) -> Any:
        """The starting state for these seats (in seating order)."""
        ...

    def pending(self, state: Any) -> dict[str, Decision]:
        """Who owes orders now and for what; empty when the game is over."""
        ...

    def order_model(self, decision: Decision) -> type[BaseModel]:
        """The pydantic model of the ``orders`` value for this kind of decision.

        The host validates ``{"orders": <the player's orders>}``-style input with
        ``model.model_validate(value)`` where ``value`` is what stood under ``orders:``; the model
        is a ``RootModel`` when ``orders`` is a list. Its JSON Schema is what ``pbem schema`` prints.
        """
        ...

    def check(self, state: Any, seat: str, orders: BaseModel) -> None:
        """Raise :class:`RulesError` for the first illegal step of ``seat``'s orders, else return.

        Called when orders arrive, before they are stored as accepted. Must agree with ``resolve``:
        orders that pass ``check`` never make ``resolve`` raise.
        """
        ...

    def resolve(self, state: Any, orders: Mapping[str, BaseModel], chance: Chance) -> Resolution:
        """Carry out the orders of every pending seat (all of them at once). Pure."""
        ...

    def view(self, state: Any, seat: str | None) -> dict[str, JSON]:
        """What ``seat`` may see (``None``: an observer). After the end, everything may show.

        The one place secrets are stripped: reports and status are rendered from this alone.
        """
        ...

    def table_inputs(self, view: Mapping[str, JSON]) -> Mapping[str, JSON]:
        """The part of ``view`` (of a seat, or the observers') that the report's shared table shows:
        its template (``templates/<name>/table.<format>.j2``) is rendered from these alone, and
        every reader whose inputs are equal is handed the same rendering. So whatever only one seat may
        see stays out, unless that seat's table is to show it (its inputs then differ from the others',
        and so does its table)."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """``None`` while the game goes on."""
        ...

    def bot(self, state: Any, seat: str, chance: Chance) -> JSON:
        """A legal, sensible choice for ``seat``'s pending decision, as it would stand under
        ``orders:`` in an order file (plain data: lists, dicts, strings)."""
        ...

    def template(self, state: Any, seat: str) -> str:
        """YAML text for the ``orders:`` value of ``seat``'s pending decision: an empty or starter
        list with comment lines explaining each step that is possible now. The host adds the
        envelope (game, player, turn, password) above it."""
        ...

    def dump_state(self, state: Any) -> JSON:
        """The state as JSON-compatible data; the host hashes its canonical JSON."""
        ...

    def load_state(self, data: JSON) -> Any:
        """The inverse of :meth:`dump_state`."""
        ...

    def resample_hidden(self, state: Any, seat: str, chance: Chance) -> Any:
        """Another state that ``seat`` cannot tell apart from ``state``: every holding hidden from
        ``seat`` (other screens, the bag's contents, face-down tokens) dealt anew, legally.

        Used by the secrets property tests: ``view(state, seat)`` must equal
        ``view(resample_hidden(state, seat, c), seat)``.
        """
        ...


# --------------------------------------------------------------------------------------------- optional hooks


@dataclass(frozen=True)
class StepChoice:
    """One step a seat may add to its orders now.

    ``step`` is the step as it stands in an order file's ``orders:`` list (plain data: ``"pass"``,
    ``{"place": {"at": "Bd5", "from": "front"}}``); ``keyword`` is its keyword (``place``), by which a form
    groups the choices; ``label`` says it in words (a message marked with ``T_``, translated when read).
    """

    step: JSON
    keyword: str
    label: str


@dataclass(frozen=True)
class NextSteps:
    """What :meth:`StepGuide.next_steps` answers: the steps the rules allow next, and whether the steps
    chosen so far already make orders that :meth:`Game.check` accepts (they may be sent as they are)."""

    choices: Sequence[StepChoice]
    complete: bool


@runtime_checkable
class StepGuide(Protocol):
    """A game that can lead a player through a decision step by step (the web's orders form, the API)."""

    def next_steps(self, state: Any, seat: str, chosen: Sequence[JSON]) -> NextSteps:
        """The steps the rules allow ``seat`` to add after ``chosen`` for its pending decision.

        ``chosen`` is a list of steps as plain data; when it is not the start of legal orders this
        raises the :class:`RulesError` that :meth:`Game.check` would. Every choice extends ``chosen`` to
        the start of legal orders, every legal orders list can be built one choice at a time, and
        ``complete`` is true exactly when ``chosen`` passes :meth:`Game.check`. Pure, and a function of
        what ``seat`` may see.
        """
        ...


@dataclass(frozen=True)
class Budget:
    """How much a searching level searches: ``candidates`` orders compared, each in ``worlds`` resampled
    states, played on for ``horizon`` resolutions after the decision's own before they are valued (``None``:
    to the end of the game, valued by its outcome)."""

    candidates: int
    worlds: int
    horizon: int | None


@runtime_checkable
class StandIn(Protocol):
    """What a search needs of a game to play a seat better than its heuristic :meth:`Game.bot`."""

    #: how much each searching level (``normal``, ``strong``) searches in this game: how far a decision's
    #: consequences reach, and what a resolution costs, differ from game to game, so each game sets its own
    #: (measured in BENCHMARKS.md; ``pbem.core.search.BUDGETS`` is the common choice)
    budgets: Mapping[str, Budget]

    def candidates(self, state: Any, seat: str, chance: Chance, limit: int) -> list[JSON]:
        """Up to ``limit`` distinct legal orders for ``seat``'s pending decision, as plain data, the
        heuristic's best first and the rest varied enough to be worth comparing."""
        ...

    def evaluate(self, state: Any, seat: str) -> float:
        """How well ``seat`` stands in ``state``, from 0 (surely last) to 1 (surely first): what a search
        takes as the worth of a position it does not play to the end."""
        ...
