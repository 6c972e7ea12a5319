"""The host's two :class:`pbem.core.game.Chance` implementations.

:class:`Recorder` draws from an RNG derived from (game seed, epoch, turn number) and records every
outcome as ``[label, n, outcome]``; :class:`Script` answers from such a record, for replays and for
games recorded elsewhere, and fails clearly when the game asks for something the record does not hold.
"""

from __future__ import annotations

import random
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


class Script:
    """Answers from a record of draws, in order; any other question is an error."""

    def __init__(self, record: list[Draw], *, where: str = "") -> None:
        self._record = [list(draw) for draw in record]
        self._next = 0
        self._where = f"{where}: " if where else ""

    def pick(self, label: str, n: int) -> int:
        if self._next >= len(self._record):
            raise ScriptExhausted(
                "chance.exhausted",
                f"{self._where}the game asked for a draw ({label} of {n}) beyond the "
                f"{len(self._record)} recorded",
            )
        rec_label, rec_n, outcome = self._record[self._next]
        if rec_label != label or rec_n != n:
            raise ScriptExhausted(
                "chance.mismatch",
                f"{self._where}draw {self._next + 1}: the game asked for {label} of {n}, "
                f"the record holds {rec_label} of {rec_n}",
            )
        if not (isinstance(outcome, int) and 0 <= outcome < n):
            raise ScriptExhausted(
                "chance.invalid",
                f"{self._where}draw {self._next + 1}: outcome {outcome!r} is not in 0..{n - 1}",
            )
        self._next += 1
        return outcome

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
    for index, (label, n, outcome) in enumerate(record):
        if not (isinstance(n, int) and n >= 1):
            return index, [label, n, outcome], -1
        given = recorder.pick(label, n)
        if given != outcome:
            return index, [label, n, outcome], given
    return None
