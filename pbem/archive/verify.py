"""``pbem verify ARCHIVE``: any player's check of a game's dice, with nothing but the archive.

It checks that the revealed seed is the one committed to at the start (its SHA-256 with the dice tag
is the published commitment), re-derives every draw of every turn from the seed and that turn's orders
(:mod:`pbem.core.dice`), and replays every turn to check every state hash. Each kind of tampering is named:
a changed commitment (the seed gives every draw, but not that commitment), a changed seed (it gives
neither), a changed draw (the seed and the commitment agree, one turn's draw does not).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.archive.replay import GameRecord, replay
from pbem.core.chance import first_difference
from pbem.core.dice import commitment


@dataclass
class DiceCheck:
    """What ``pbem verify`` found."""

    ok: bool
    turns: int = 0
    draws: int = 0
    problems: list[str] = field(default_factory=list)


def check(record: GameRecord) -> DiceCheck:
    """The dice and every state hash of ``record`` checked."""
    draws = sum(len(t.chance) for t in record.turns)
    if record.dice >= 2 and not record.commitment:
        return DiceCheck(False, 0, draws, ["commitment: the archive holds no dice commitment"])
    if record.seed is None:
        return DiceCheck(
            False,
            0,
            draws,
            ["seed: the archive holds no seed; it is revealed once the game is over (the final report)"],
        )
    wrong_draws = []
    for entry in record.turns:
        found = first_difference(
            [list(d) for d in entry.chance],
            record.seed,
            entry.epoch,
            entry.number,
            dice=record.dice,
            digest=record.digest(entry) if record.dice >= 2 else "",
        )
        if found is not None:
            index, (label, n, outcome), given = found
            wrong_draws.append(
                f"draw: turn {entry.number}, draw {index + 1} ({label} of {n}) is {outcome!r} in the "
                f"archive; the seed and the turn's orders give {given}"
            )
    problems: list[str] = []
    if record.dice >= 2 and commitment(record.seed) != record.commitment:
        if wrong_draws and len(wrong_draws) == sum(1 for t in record.turns if t.chance):
            problems.append(
                f"seed: {record.seed} is not the seed committed to at the start (its commitment is "
                f"{commitment(record.seed)}, the archive's {record.commitment}) and it gives none "
                "of the recorded turns' draws"
            )
            wrong_draws = []
        else:
            problems.append(
                f"commitment: {record.commitment} is not the commitment of the seed {record.seed} "
                f"({commitment(record.seed)}), which gives the recorded draws"
            )
    problems += wrong_draws
    # the state hashes; the draws were checked above, one message each
    unseeded = record.model_copy(update={"seed": None})
    steps = 0
    for step in replay(unseeded):
        steps += 1
        problems.extend(step.problems)
    ok = not problems and steps == len(record.turns)
    return DiceCheck(ok, steps, draws, problems)
