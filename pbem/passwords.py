"""Seat passwords: generated once (``tulip-frog-42``), shown once, stored as a salted scrypt hash,
compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from functools import cache
from pathlib import Path

#: scrypt cost: about 50 ms on a small machine, per check; 16 MiB of memory
_N, _R, _P = 2**14, 8, 1
_SALT_BYTES = 16


@cache
def _words() -> tuple[str, ...]:
    return tuple((Path(__file__).parent / "data" / "words.txt").read_text("utf-8").split())


def generate() -> str:
    """Three words and two digits from the ``secrets`` module: easy to type, about 33 bits."""
    words = _words()
    return "-".join(secrets.choice(words) for _ in range(3)) + f"-{secrets.randbelow(100):02d}"


def _derive(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=32)


def hash_password(password: str) -> str:
    """``scrypt$<salt hex>$<hash hex>``."""
    salt = secrets.token_bytes(_SALT_BYTES)
    return f"scrypt${salt.hex()}${_derive(password, salt).hex()}"


def verify(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``. With ``stored`` ``None`` (no such seat) it still spends
    the time of a real check, so an unknown seat cannot be told from a wrong password by timing."""
    try:
        scheme, salt_hex, hash_hex = (stored or "scrypt$00$00").split("$")
        salt, expected = bytes.fromhex(salt_hex), bytes.fromhex(hash_hex)
    except ValueError:
        return False
    actual = _derive(password, salt)
    return scheme == "scrypt" and stored is not None and hmac.compare_digest(actual, expected)
