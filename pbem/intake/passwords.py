"""Seat passwords: generated once (``sage-plank-cod-viral-42``), shown once, stored as a salted scrypt
hash, compared in constant time.

The strength is in the password, not in the hash's cost: four words from the EFF short word list
(1,295 words of letters only) and two digits, drawn with ``secrets``, are 4 × log2(1295) + log2(100) ≈
48 bits. An attacker who steals the database and guesses offline at scrypt n=2^11, r=8 (about 3 ms of
a core and 2 MiB per guess) needs on average 2^47 guesses, some ten thousand core-years: the cost
needs no more, and every order file pays it once, so it stays small. The cost is written into each
hash (``scrypt$n=2048,r=8,p=1$<salt hex>$<hash hex>``) so it can be raised later without breaking the
hashes already stored; the first form, ``scrypt$<salt hex>$<hash hex>``, was n=2^14, r=8, p=1 and
still verifies."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from functools import cache

from xkcdpass import xkcd_password

#: scrypt cost of new hashes: about 3 ms of a core per check, 2 MiB of memory (see the module's text)
_N, _R, _P = 2**11, 8, 1
#: the cost of the first form, ``scrypt$<salt>$<hash>``, which carried none
_LEGACY_N, _LEGACY_R, _LEGACY_P = 2**14, 8, 1
_SALT_BYTES = 16
_WORDS_PER_PASSWORD = 4


@cache
def _words() -> tuple[str, ...]:
    # letters only: "yo-yo" would blur the dashes between words
    wordfile = xkcd_password.locate_wordfile("eff-short")
    return tuple(
        sorted(xkcd_password.generate_wordlist(wordfile, min_length=1, max_length=20, valid_chars="[a-z]"))
    )


def generate() -> str:
    """Four words from the EFF short list and two digits, from the ``secrets`` module: easy to type,
    about 48 bits."""
    words = _words()
    drawn = [secrets.choice(words) for _ in range(_WORDS_PER_PASSWORD)]
    return "-".join(drawn) + f"-{secrets.randbelow(100):02d}"


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)


def hash_password(password: str) -> str:
    """``scrypt$n=<N>,r=<r>,p=<p>$<salt hex>$<hash hex>``, at the current cost."""
    salt = secrets.token_bytes(_SALT_BYTES)
    return f"scrypt$n={_N},r={_R},p={_P}${salt.hex()}${_derive(password, salt, _N, _R, _P).hex()}"


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes]:
    """Cost, salt and hash of either stored form; ``ValueError`` for anything else."""
    parts = stored.split("$")
    if parts[0] != "scrypt":
        raise ValueError("not an scrypt hash")
    if len(parts) == 3:
        n, r, p = _LEGACY_N, _LEGACY_R, _LEGACY_P
    elif len(parts) == 4:
        cost = dict(item.split("=", 1) for item in parts[1].split(","))
        if set(cost) != {"n", "r", "p"}:
            raise ValueError("the cost needs n, r and p")
        n, r, p = int(cost["n"]), int(cost["r"]), int(cost["p"])
    else:
        raise ValueError("not an scrypt hash")
    return n, r, p, bytes.fromhex(parts[-2]), bytes.fromhex(parts[-1])


def verify(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``. With ``stored`` ``None`` (no such seat) it still spends
    the time of a real check, so an unknown seat cannot be told from a wrong password by timing."""
    if stored is None:
        _derive(password, bytes(_SALT_BYTES), _N, _R, _P)
        return False
    try:
        n, r, p, salt, expected = _parse(stored)
        actual = _derive(password, salt, n, r, p)
    except ValueError:  # not a hash this module wrote, or a cost scrypt refuses
        return False
    return hmac.compare_digest(actual, expected)
