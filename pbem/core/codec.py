"""Canonical JSON, hashing and compression: the one place the byte form of stored data is decided."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.core import fast_zlib


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
    """Compress large bytes written often (every stored report, each turn) by ISA-L
    (:func:`pbem.core.fast_zlib.compress`, what it buys measured there): an ordinary zlib stream, so
    :func:`unpack` and any zlib read it, and rows :func:`pack` wrote before read the same."""
    return fast_zlib.compress(raw)


#: each large piece :func:`pack_bytes_sharing` packed lately, by its bytes, as its deflate stream (sync
#: flushed, no header): the pieces of a turn's mails its seats' mails share. A piece's stream is the same
#: whichever mail it is in (a stream of its own, started afresh), so what is kept for a piece is what
#: packing it again would give.
_SEGMENTS: OrderedDict[bytes, bytes] = OrderedDict()
_SEGMENTS_MOST = 16
#: a zlib stream's header (deflate, 32 KB window, ISA-L's level 2 named as "fast"); its end: an empty
#: last block
_ZLIB_HEAD, _LAST_BLOCK = b"\x78\x5e", b"\x03\x00"
#: the bytes of a piece a mail is searched for (from its middle: pictures begin alike, a PNG's header)
#: before the whole piece is compared there
_PROBE = 64
#: a cut shorter than this (the part headers between two pictures) is stored as it is, not deflated: a
#: deflate stream of its own cost 5 us however short
_STORE_BELOW = 1024


def _stored(raw: bytes | memoryview) -> bytes:
    """``raw`` as one stored deflate block, not last (at a byte boundary: after a sync flush)."""
    size = len(raw)
    return b"\x00" + size.to_bytes(2, "little") + (size ^ 0xFFFF).to_bytes(2, "little") + bytes(raw)


def _packed_cut(cut: memoryview) -> bytes:
    """A cut of a mail between its shared pieces: stored as it is when short, else deflated."""
    return _stored(cut) if len(cut) < _STORE_BELOW else fast_zlib.deflate_joinable(cut)


def _deflated_shared(piece: bytes) -> bytes:
    known = _SEGMENTS.get(piece)
    if known is None:
        known = fast_zlib.deflate_joinable(piece)
        _remember(_SEGMENTS, piece, known, _SEGMENTS_MOST)
    return known


def _remember(kept: OrderedDict[bytes, Any], key: bytes, value: Any, most: int) -> None:
    """Keep ``value`` under ``key`` in ``kept``, forgetting the oldest entries beyond ``most``."""
    kept[key] = value
    while len(kept) > most:
        try:
            kept.popitem(last=False)
        except KeyError:  # emptied meanwhile by another thread: nothing left to forget
            break


def pack_bytes_sharing(raw: bytes, shared: Sequence[bytes]) -> bytes:
    """:func:`pack_bytes_fast` of ``raw`` (a zlib stream whose inflate is ``raw``), where the pieces
    ``shared`` that ``raw`` holds (in that order; one it does not is passed over) are packed once for
    every message holding them: a turn's four report mails hold the same table and pictures, four
    fifths of each mail's 88 KB, which ISA-L packed four times. The stream is ``raw`` cut at those
    pieces, each cut deflated as a stream of its own (a sync flush ends each, so they join into one),
    with the zlib header and the Adler-32 of the whole; any zlib reads it."""
    parts: list[bytes | memoryview | Piece] = []
    view, at = memoryview(raw), 0
    for piece in shared:
        middle = len(piece) // 2
        probe = piece[middle : middle + _PROBE]
        found = raw.find(probe, at + middle)
        while found >= 0 and not raw.startswith(piece, found - middle):
            found = raw.find(probe, found + 1)
        if found < 0:
            continue
        found -= middle
        parts += [view[at:found], Piece(piece, _deflated_shared(piece))]
        at = found + len(piece)
    parts.append(view[at:])
    return pack_parts(parts)


def pack_parts(parts: Sequence[bytes | memoryview | Piece]) -> bytes:
    """A zlib stream whose inflate is the join of ``parts`` (each part's deflate a stream of its own,
    ending in a sync flush, so they join into one; a :class:`Piece` deflated once for every blob holding
    it), the join itself never made: the Adler-32 is run over the parts. Any zlib reads it."""
    out, check = [_ZLIB_HEAD], 1
    for part in parts:
        raw = part.raw if isinstance(part, Piece) else part
        if not raw:
            continue
        out.append(part.deflated if isinstance(part, Piece) else _packed_cut(memoryview(raw)))
        check = fast_zlib.adler32(raw, check)
    out += [_LAST_BLOCK, check.to_bytes(4, "big")]
    return b"".join(out)


@dataclass(frozen=True)
class Piece:
    """Bytes several blobs hold, with their deflate stream (:func:`pbem.core.fast_zlib.deflate_joinable`),
    made once for all."""

    raw: bytes
    deflated: bytes


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
    _remember(_PACKED_LATELY, blob, text, _PACKED_LATELY_MOST)
    return blob


def unpack(blob: bytes) -> str:
    # the stdlib's inflate, whatever packed it: readers of damaged rows catch its zlib.error
    return zlib.decompress(blob).decode("utf-8")


def unpack_fast(blob: bytes) -> str:
    """:func:`unpack` by ISA-L's inflate (:func:`pbem.core.fast_zlib.decompress`: the mail pass reads a
    turn's pages back each turn). A damaged stream raises :class:`zlib.error` all the same, as readers
    of stored rows expect. A blob this process has just
    packed (:func:`pack_text_fast`) is not inflated again."""
    known = _PACKED_LATELY.get(blob)
    if known is not None:
        return known
    return fast_zlib.decompress(blob).decode("utf-8")


def pack_json(data: Any) -> bytes:
    return pack(canonical_json(data))


def unpack_json(blob: bytes) -> Any:
    return json.loads(unpack(blob))
