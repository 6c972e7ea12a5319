"""Canonical JSON, hashing and compression: the one place the byte form of stored data is decided."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import OrderedDict
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


#: the texts of the blobs :func:`pack_text_fast` made last, by the blobs' bytes: a tick's mail pass reads
#: back the reports its turn just stored (ten blobs a 4-player turn, ~0.4 ms to inflate). Keyed by the
#: packed bytes themselves, so what it gives for a blob is exactly what inflating that blob gives; a
#: turn's worth and more, so a game's reports are still there when its mail is composed.
_PACKED_LATELY: OrderedDict[bytes, str] = OrderedDict()
_PACKED_LATELY_MOST = 32


def pack_text_fast(text: str, raw: bytes | None = None) -> bytes:
    """:func:`pack_bytes_fast` of ``text`` (``raw``: its UTF-8, when the caller has it), remembered for
    :func:`unpack_fast`."""
    blob = pack_bytes_fast(text.encode("utf-8") if raw is None else raw)
    _PACKED_LATELY[blob] = text
    while len(_PACKED_LATELY) > _PACKED_LATELY_MOST:
        try:
            _PACKED_LATELY.popitem(last=False)
        except KeyError:  # emptied meanwhile by another thread: nothing left to forget
            break
    return blob


def unpack(blob: bytes) -> str:
    # the stdlib's inflate, whatever packed it: readers of damaged rows catch its zlib.error
    return zlib.decompress(blob).decode("utf-8")


def unpack_fast(blob: bytes) -> str:
    """:func:`unpack` by ISA-L's inflate, two to three times the stdlib's speed (the mail pass reads a
    turn's five pages back, some 350 KB, each turn). A damaged stream raises :class:`zlib.error` all
    the same, as readers of stored rows expect, not ISA-L's own error. A blob this process has just
    packed (:func:`pack_text_fast`) is not inflated again."""
    known = _PACKED_LATELY.get(blob)
    if known is not None:
        return known
    try:
        raw = isal_zlib.decompress(blob)
    except isal_zlib.error as exc:
        raise zlib.error(str(exc)) from None
    return raw.decode("utf-8")


def pack_json(data: Any) -> bytes:
    return pack(canonical_json(data))


def unpack_json(blob: bytes) -> Any:
    return json.loads(unpack(blob))
