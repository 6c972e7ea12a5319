"""What a record leaves ``unknown`` (docs/records.md, "Unknowns"), filled consistently with the rest of it.

A log never shows some things: the polyps drawn behind a screen, the one fed to a parrotfish. A record
may write them ``unknown``, as a draw (``[bag, unknown]``) or as a value in the orders (``parrotfish:
unknown``). Each is filled when the replay meets it: a draw as a fair draw would go, from an RNG derived
from the game's seed (0 without one) and the unknown's place in the record; a value in the orders with
one of the values the order grammar allows there. When the rest of the record then refuses the game so
filled (a polyp placed that the screen does not hold, a colour drawn that the bag no longer holds), one
unknown at a time is given another value, or two swap theirs, keeping a change only when the replay
gets further; the first fill the whole record accepts is kept. Everything here is deterministic: the
same record gives the same game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.core.chance import UNKNOWN
from pbem.core.dice import derived_rng
from pbem.core.errors import UserError

#: how much replaying the search may spend before it gives up, in turns replayed (a turn costs some
#: milliseconds): a bound on the work, not on time, so the same record always gives the same answer
MAX_TURNS_REPLAYED = 5_000

#: where a replay stopped: (turn, stage, seat, step or draw); a later place is further on
Progress = tuple[int, int, int, int]


class Refused(UserError):
    """The record refused by the rules or its draws, and how far the replay got before."""

    def __init__(self, message: str, progress: Progress) -> None:
        super().__init__(message)
        self.progress = progress


@dataclass
class Guesses:
    """The values given to a record's unknowns, by their place (0, 1, ... in the order met)."""

    seed: int
    wanted: dict[int, str] = field(default_factory=dict)
    #: (what it was, the values it could take, the value given) of each unknown met so far
    met: list[tuple[str, list[str], str]] = field(default_factory=list)

    def _rng(self) -> Any:
        return derived_rng(self.seed, 0, len(self.met), "unknown")

    def draw(self, label: str, n: int, faces: Sequence[str] | None) -> int:
        """An unknown draw: the wanted face when it can be drawn here, else a fair draw."""
        names = list(faces) if faces is not None else [str(i) for i in range(n)]
        want = self.wanted.get(len(self.met))
        outcome = names.index(want) if want in names else self._rng().randrange(n)
        self.met.append((f"a draw ({label})", list(dict.fromkeys(names)), names[outcome]))
        return outcome

    def value(self, what: str, choices: Sequence[str]) -> str:
        """An unknown value in the orders: the wanted one when allowed, else one of ``choices``."""
        want = self.wanted.get(len(self.met))
        given = want if want in choices else choices[self._rng().randrange(len(choices))]
        self.met.append((what, list(choices), given))
        return given

    def alternatives(self, index: int) -> list[str]:
        """The other values unknown ``index`` could take, in an order of its own (from the seed)."""
        _what, choices, given = self.met[index]
        others = [c for c in choices if c != given]
        derived_rng(self.seed, 1, index, "unknown").shuffle(others)
        return others


def fill(run: Callable[[Guesses], Any], seed: int) -> tuple[Any, Guesses]:
    """``run(guesses)`` (a replay of the record) until it accepts the record; returns its result and the
    guesses. A :class:`Refused` when no fill was found: the refusal of the fill that got furthest.

    From the first fill, one move at a time: an unknown given another value, or two unknowns that could
    each take the other's value swapping them (a swap keeps what the bag holds in all, so draws the
    record names later still fit). A move is kept when the replay gets further than before. Moves that
    bring in a value the refusal names (``you have no yellow polyp``) are tried first."""
    guesses = Guesses(seed)
    try:
        return run(guesses), guesses
    except Refused as refused:
        if not guesses.met:  # nothing was filled by guessing (a seed gave every unknown draw)
            raise
        best, best_guesses = refused, guesses
    spent = best.progress[0] + 1
    while spent < MAX_TURNS_REPLAYED:
        for wanted in _moves(best_guesses, str(best)):
            trial = Guesses(seed, wanted)
            try:
                return run(trial), trial
            except Refused as refused:
                spent += refused.progress[0] + 1
                if refused.progress > best.progress:
                    best, best_guesses = refused, trial
                    break
            if spent >= MAX_TURNS_REPLAYED:
                break
        else:
            break  # no move gets further
    raise Refused(
        f"{best} (the record's unknowns were filled every way tried, and none fits the rest of the record: "
        "check what it says after them)",
        best.progress,
    )


def _moves(guesses: Guesses, refusal: str) -> Iterator[dict[int, str]]:
    """The fills next to ``guesses``, those bringing in a value ``refusal`` names first."""
    given = {i: value for i, (_what, _choices, value) in enumerate(guesses.met)}
    named = set(re.findall(r"[\w*/-]+", refusal))
    singles = [(i, value) for i in reversed(range(len(guesses.met))) for value in guesses.alternatives(i)]
    swaps = [
        (i, j)
        for i in reversed(range(len(guesses.met)))
        for j in range(len(guesses.met))
        if given[i] != given[j] and given[j] in guesses.met[i][1] and given[i] in guesses.met[j][1] and i != j
    ]
    for hinted in (True, False):
        for i, value in singles:
            if (value in named) == hinted:
                yield given | {i: value}
        for i, j in swaps:
            if (given[j] in named) == hinted and (hinted or i > j):
                yield given | {i: given[j], j: given[i]}


def unknowns_in(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The places in ``value`` (orders as written) that say ``unknown``."""
    if value == UNKNOWN:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in unknowns_in(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in unknowns_in(v, (*path, i))]
    return []


def choices_at(schema: dict[str, Any], path: Sequence[Any]) -> list[str]:
    """The values the order grammar (its JSON schema) allows at ``path``; empty when it names none."""
    defs = schema.get("$defs", {})

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def walk(node: dict[str, Any], rest: Sequence[Any]) -> list[str]:
        node = resolve(node)
        for branch in node.get("oneOf", []) + node.get("anyOf", []):
            found = walk(branch, rest)
            if found:
                return found
        if not rest:
            return [str(v) for v in node.get("enum", [])]
        key, more = rest[0], rest[1:]
        if isinstance(key, int) and "items" in node:
            return walk(node["items"], more)
        if isinstance(key, str) and key in node.get("properties", {}):
            return walk(node["properties"][key], more)
        return []

    return walk(schema, list(path))


def put(value: Any, path: Sequence[Any], new: Any) -> Any:
    """``value`` with the item at ``path`` replaced by ``new`` (``value`` itself unchanged)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: put(value[head], rest, new)}
    copy = list(value)
    copy[head] = put(copy[head], rest, new)
    return copy
