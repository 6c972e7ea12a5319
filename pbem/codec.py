"""Canonical JSON, hashing and compression: the one place the byte form of stored data is decided."""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

from isal import isal_zlib


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the same data always gives the same text.

    >>> canonical_json({"b": 1, "a": [1, "é"]})
    '{"a":[1,"é"],"b":1}'
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(text: str | bytes) -> str:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(raw).hexdigest()


def pack(text: str, level: int = 6) -> bytes:
    """Compress text for storage (level 6: most of level 9's gain at a fraction of its cost)."""
    return zlib.compress(text.encode("utf-8"), level)


def pack_bytes_fast(raw: bytes) -> bytes:
    """Compress large bytes written often (every stored report, each turn) with ISA-L (``isal``) at its
    level 2: an ordinary zlib stream, so :func:`unpack` and any zlib read it, and rows :func:`pack`
    wrote before read the same. Ten reports of a 4-player turn (five ~65 KB pages, five ~4 KB texts)
    took 1.06 ms at the stdlib's level 3 and take 0.28 ms, for 4 % more bytes (49.9 KB against 47.9).
    The bytes depend on the input and the level (ISA-L's compressor has no random state: tested), and
    may on the processor (it picks its code by the instructions there are), so nothing compares packed
    bytes, only what they unpack to and its digest."""
    return isal_zlib.compress(raw, 2)


def unpack(blob: bytes) -> str:
    # the stdlib's inflate, whatever packed it: readers of damaged rows catch its zlib.error
    return zlib.decompress(blob).decode("utf-8")


def unpack_fast(blob: bytes) -> str:
    """:func:`unpack` by ISA-L's inflate, two to three times the stdlib's speed (the mail pass reads a
    turn's five pages back, some 350 KB, each turn). A damaged stream raises :class:`zlib.error` all
    the same, as readers of stored rows expect, not ISA-L's own error."""
    try:
        raw = isal_zlib.decompress(blob)
    except isal_zlib.error as exc:
        raise zlib.error(str(exc)) from None
    return raw.decode("utf-8")


def pack_json(data: Any) -> bytes:
    return pack(canonical_json(data))


def unpack_json(blob: bytes) -> Any:
    return json.loads(unpack(blob))
