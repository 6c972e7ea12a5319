"""zlib streams written and read by ISA-L (``isal``): the one module that calls it.

What it buys, measured (CPU time, medians of five runs or more, on the bot games of ``bench.digest``):

- stored reports (:mod:`pbem.core.codec`): a turn's pages and texts (125 turns, seats in five
  languages) packed in 0.36 ms a turn at ISA-L's level 2, where the stdlib's zlib took 1.49 ms at
  level 3 (1.32 ms at level 1), for 52.3 KB a turn against 51.0 KB (53.3 KB at level 1);
- a report mail in the outbox (86 KB, two thirds of it base64 pictures): 0.16 ms, where the stdlib took
  1.23 ms at level 3 (1.11 ms at level 1), 42.1 KB against 41.1 KB (42.1 KB);
- the mail pass reading a turn's reports back: 0.22 ms a turn, the stdlib 0.48 ms;
- a board picture's PNG rows (:mod:`pbem.render.png`): 0.14 ms for a Reef Encounter board, where
  Pillow's PNG writer (the system's zlib) took 1.38 ms at level 3; the sea floor 1.68 ms against 4.71.

The plain alternative is the stdlib's ``zlib.compress`` and ``zlib.decompress`` (and Pillow's own PNG
writer): the streams are ordinary zlib ones, so rows either wrote read the same with both, and swapping
this module for the stdlib changes stored bytes, never what they unpack to.

ISA-L's bytes depend on the input and the level (its compressor has no random state), and may on the
processor (it picks its code by the instructions there are): nothing compares packed bytes, only what
they unpack to and its digest.
"""

from __future__ import annotations

import zlib

from isal import isal_zlib

#: ISA-L's level, the one measured above
LEVEL = 2

Bytes = bytes | bytearray | memoryview


def compress(raw: Bytes) -> bytes:
    """``raw`` as one zlib stream (header, deflate, Adler-32), at :data:`LEVEL`."""
    return isal_zlib.compress(raw, LEVEL)


def decompress(blob: Bytes) -> bytes:
    """What the zlib stream ``blob`` holds (whatever wrote it). A damaged stream raises
    :class:`zlib.error`, as the stdlib's would (readers of stored rows catch it), not ISA-L's own."""
    try:
        return isal_zlib.decompress(blob)
    except isal_zlib.error as exc:
        raise zlib.error(str(exc)) from None


def deflate_joinable(raw: Bytes) -> bytes:
    """``raw`` as raw deflate blocks of their own (no zlib header), ending byte-aligned and not last (a
    sync flush): such streams, one after the other, are one deflate stream."""
    packer = isal_zlib.compressobj(LEVEL, isal_zlib.DEFLATED, -15)
    return packer.compress(raw) + packer.flush(isal_zlib.Z_SYNC_FLUSH)


def adler32(raw: Bytes, value: int = 1) -> int:
    """The Adler-32 of ``raw``, continued from ``value`` (a zlib stream's check of its whole)."""
    return isal_zlib.adler32(raw, value)
