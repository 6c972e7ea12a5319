"""Committed dice: what lets every player check the host's draws.

At creation the host draws a secret seed and publishes its *commitment*, the SHA-256 of a domain tag and
the seed. From dice version 2 on, each turn's draws come from an RNG keyed by the seed, the turn and the
*orders digest*: the SHA-256 of that turn's accepted orders, every seat's, in seat order. So the host
cannot know a turn's draws before the last order of it is in, and, once the seed is revealed at the end,
anyone can re-derive every draw from the archive (``pbem verify``) and see that the seed is the one
committed to at the start.

Version 1 is the derivation of games created before: (seed, epoch, turn) only. The version is stored
with each game, so those games keep it and still replay.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.codec import canonical_json

#: the derivation new games get; 1 is the one games created before keep
CURRENT = 2
VERSIONS = (1, 2)
#: domain tags: a commitment or a key made for one purpose is never valid for another
COMMITMENT_TAG = b"pbem/dice/commitment/v2\x00"
TURN_TAG = b"pbem/dice/turn/v2\x00"


def derived_rng(seed: int, epoch: int, turn: int, purpose: str = "") -> random.Random:
    """An RNG that depends on nothing but its arguments. A strong derivation (SHA-256) so that
    neighbouring turns' streams share nothing. ``purpose`` separates other streams (the bots')
    from the one the rules draw from."""
    key = f"{seed}:{epoch}:{turn}" + (f":{purpose}" if purpose else "")
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def seed_bytes(seed: int) -> bytes:
    """The seed as it is hashed: its decimal digits (what a player reads in the final report)."""
    return str(int(seed)).encode("ascii")


def commitment(seed: int) -> str:
    """SHA-256(tag || seed), hex: published at creation, while the seed stays secret."""
    return hashlib.sha256(COMMITMENT_TAG + seed_bytes(seed)).hexdigest()


def orders_digest(seats: Sequence[str], orders: Mapping[str, Any]) -> str:
    """SHA-256 of a turn's orders: ``[[seat, orders], ...]`` for every seat that gave orders, in seat
    order, as canonical JSON. The setup (no orders) has the digest of ``[]``."""
    known = [seat for seat in seats if seat in orders]
    stray = sorted(set(orders) - set(seats))  # not a seat of the game: still hashed, after the seats
    items = [[seat, orders[seat]] for seat in [*known, *stray]]
    return hashlib.sha256(canonical_json(items).encode("utf-8")).hexdigest()


def turn_rng(dice: int, seed: int, epoch: int, turn: int, digest: str) -> random.Random:
    """The RNG the rules draw from in one turn, by derivation ``dice``."""
    if dice == 1:
        return derived_rng(seed, epoch, turn)
    if dice != 2:
        raise ValueError(f"unknown dice version {dice}; this host knows {', '.join(map(str, VERSIONS))}")
    key = TURN_TAG + canonical_json([str(int(seed)), epoch, turn, digest]).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest(), "big"))


def report_data(dice: int, seed: int | None, over: bool) -> dict[str, Any] | None:
    """What a report shows of the dice: the commitment, and the seed once the game is over; nothing
    for games from before committed dice (their reports stay as they were)."""
    if dice < 2 or seed is None:
        return None
    return {"commitment": commitment(seed), "seed": str(seed) if over else None}
