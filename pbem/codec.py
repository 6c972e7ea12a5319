"""Canonical JSON, hashing and compression: the one place the byte form of stored data is decided."""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any


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


def unpack(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")


def pack_json(data: Any) -> bytes:
    return pack(canonical_json(data))


def unpack_json(blob: bytes) -> Any:
    return json.loads(unpack(blob))
