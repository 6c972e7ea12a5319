"""The host's two :class:`pbem.core.game.Chance` implementations.

:class:`Recorder` draws from an RNG derived from (game seed, epoch, turn number) and records every
outcome as ``[label, n, outcome]``; :class:`Script` answers from such a record, for replays and for
games recorded elsewhere, and fails clearly when the game asks for something the record does not hold.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pbem.core.dice import derived_rng, turn_rng
from pbem.core.game import ScriptExhausted

#: one recorded outcome: ``[label, n, outcome]``
Draw = list[Any]


class Recorder:
    """Draws from the RNG of one turn and records what was drawn."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.record: list[Draw] = []

    @classmethod
    def for_turn(cls, seed: int, epoch: int, turn: int, purpose: str = "") -> Recorder:
        return cls(derived_rng(seed, epoch, turn, purpose))

    @classmethod
    def for_dice(cls, dice: int, seed: int, epoch: int, turn: int, digest: str) -> Recorder:
        """The rules' RNG of one turn by dice derivation ``dice`` (``digest``: the turn's orders')."""
        return cls(turn_rng(dice, seed, epoch, turn, digest))

    def pick(self, label: str, n: int) -> int:
        if n < 1:
            raise ValueError(f"cannot draw from nothing ({label}: n={n})")
        outcome = self._rng.randrange(n)
        self.record.append([label, n, outcome])
        return outcome


#: what a record writes for a draw its log never showed (docs/records.md, "Unknowns")
UNKNOWN = "unknown"
#: the fourth item of a stored draw the record left unknown, whose outcome was assumed
ASSUMED = "assumed"

#: fills a draw written ``unknown``: (label, n, faces or ``None``) -> the outcome
Guess = Callable[[str, int, Sequence[str] | None], int]


def could_give(faces: Sequence[str]) -> str:
    """What a draw could give, for a message: ``grey 12, orange 3`` (a bag), ``alice, bob`` (a choice)."""
    seen = Counter(faces)
    if all(n == 1 for n in seen.values()):
        return ", ".join(seen)
    return ", ".join(f"{face} {n}" for face, n in seen.items())


class Script:
    """Answers from a record of draws, in order; any other question is an error.

    A draw is ``[label, n, outcome]`` (the outcome as an index in the game's ordering), or, in a record
    written from what came out, ``[label, face]`` (the colour, the tile, the seat) or ``[label, unknown]``.
    A face is looked up among what the draw could give at that point; ``unknown`` is what the seed gives
    (``seeded``, the record's seed) or what ``guess`` fills in. :attr:`drawn` holds every answer given as
    ``[label, n, outcome]``, with :data:`ASSUMED` fourth when it was not recorded.
    """

    def __init__(
        self,
        record: list[Draw],
        *,
        where: str = "",
        line: Callable[[int], int | None] | None = None,
        seeded: Recorder | None = None,
        guess: Guess | None = None,
    ) -> None:
        self._record = [list(draw) if isinstance(draw, (list, tuple)) else [draw] for draw in record]
        self._next = 0
        self._where = f"{where}: " if where else ""
        self._line = line
        self._seeded = seeded
        self._guess = guess
        self.drawn: list[Draw] = []

    def pick(self, label: str, n: int) -> int:
        return self._answer(label, n, None)

    def pick_face(self, label: str, faces: Sequence[str]) -> int:
        return self._answer(label, len(faces), faces)

    def _at(self) -> str:
        found = self._line(self._next) if self._line is not None else None
        line = f"line {found}: " if found is not None else ""
        return f"{self._where}{line}draw {self._next + 1}"

    def _answer(self, label: str, n: int, faces: Sequence[str] | None) -> int:
        if self._next >= len(self._record):
            raise ScriptExhausted(
                "chance.exhausted",
                f"{self._where}the game asked for a draw ({label} of {n}) beyond the "
                f"{len(self._record)} recorded",
            )
        written = self._record[self._next]
        if not (2 <= len(written) <= 4 and isinstance(written[0], str)):  # one value is read as [value]
            raise ScriptExhausted(
                "chance.shape",
                f"{self._at()}: {written!r} is not a draw; write [{label}, what came out] "
                f"(or [{label}, unknown])",
            )
        seed_gives = self._seeded.pick(label, n) if self._seeded is not None else None
        if len(written) == 2 and written[0] == label:
            outcome = self._by_face(label, n, faces, written[1], seed_gives)
        elif len(written) in (3, 4) and written[0] == label and written[1] == n:
            outcome = written[2]
            if not (isinstance(outcome, int) and not isinstance(outcome, bool) and 0 <= outcome < n):
                raise ScriptExhausted(
                    "chance.invalid", f"{self._at()}: outcome {outcome!r} is not in 0..{n - 1}"
                )
        else:
            held = f"{written[0]} of {written[1]}" if len(written) >= 3 else f"a {written[0]} draw"
            raise ScriptExhausted(
                "chance.mismatch",
                f"{self._at()}: the game asked for {label} of {n}, the record holds {held}",
            )
        assumed = (len(written) == 2 and written[1] == UNKNOWN) or written[3:] == [ASSUMED]
        self.drawn.append([label, n, outcome, ASSUMED] if assumed else [label, n, outcome])
        self._next += 1
        return outcome

    def _by_face(
        self, label: str, n: int, faces: Sequence[str] | None, face: Any, seed_gives: int | None
    ) -> int:
        if face == UNKNOWN:
            if seed_gives is not None:
                return seed_gives
            if self._guess is None:
                raise ScriptExhausted("chance.unknown", f"{self._at()} ({label}) is unknown here")
            return self._guess(label, n, faces)
        if faces is None:
            raise ScriptExhausted(
                "chance.unnamed",
                f"{self._at()} ({label}): this draw has no names; write it as [{label}, {n}, index]",
            )
        # YAML reads a bare yes or no as true or false: a coin written yes is the face "yes"
        written = {True: "yes", False: "no"}[face] if isinstance(face, bool) else str(face)
        if written not in faces:
            raise ScriptExhausted(
                "chance.not_there",
                f"{self._at()} ({label}): the record says {written}, which could not be drawn here; "
                f"the {label} held {could_give(faces)}",
            )
        if seed_gives is not None and faces[seed_gives] != written:
            raise ScriptExhausted(
                "chance.not_seed",
                f"{self._at()} ({label}): the record says {written}; the seed gives {faces[seed_gives]}",
            )
        return seed_gives if seed_gives is not None else faces.index(written)

    def unused(self) -> int:
        """How many recorded draws the game did not ask for (a replay expects none)."""
        return len(self._record) - self._next


def rederive(
    record: list[Draw], seed: int, epoch: int, turn: int, *, dice: int = 1, digest: str = ""
) -> bool:
    """Whether ``record`` is exactly what the seed gives for this turn, asked the same questions."""
    return first_difference(record, seed, epoch, turn, dice=dice, digest=digest) is None


def first_difference(
    record: list[Draw], seed: int, epoch: int, turn: int, *, dice: int = 1, digest: str = ""
) -> tuple[int, Draw, int] | None:
    """The first recorded draw the seed does not give, asked the same question: (its index, the
    draw as recorded, the outcome the seed gives); ``None`` when every one is the seed's."""
    recorder = Recorder.for_dice(dice, seed, epoch, turn, digest)
    for index, (label, n, outcome, *_assumed) in enumerate(record):
        if not (isinstance(n, int) and n >= 1):
            return index, [label, n, outcome], -1
        given = recorder.pick(label, n)
        if given != outcome:
            return index, [label, n, outcome], given
    return None
