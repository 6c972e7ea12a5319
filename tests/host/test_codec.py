"""The stored byte forms: reports packed by ISA-L read back exactly, by any zlib, and deterministically."""

from __future__ import annotations

import hashlib
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core import codec, fast_zlib
from pbem.core.codec import pack, pack_bytes_fast, pack_text_fast, sha256_hex, unpack, unpack_fast
from pbem.outbox import unpack_message
from pbem.render.reports import content_digest, report_rows


def _page(seed: int) -> str:
    # a report-like page: markup repeated with varying words, accents and CJK, some 60 KB
    rng = random.Random(seed)
    words = ['<td class="cell">', "polyp", "Korallenriff", "hűség", "珊瑚", "</td>", "\n", "écrit"]
    return "".join(rng.choice(words) for _ in range(9000))


@settings(max_examples=30, deadline=None)
@given(st.text(max_size=3000))
def test_fast_packing_reads_back_exactly_by_the_stdlib_too(text: str) -> None:
    blob = pack_bytes_fast(text.encode("utf-8"))
    assert unpack(blob) == text
    assert zlib.decompress(blob).decode("utf-8") == text


def test_rows_packed_before_by_the_stdlib_read_the_same() -> None:
    page = _page(1)
    assert unpack(pack(page, 3)) == page
    assert unpack(zlib.compress(page.encode("utf-8"), 9)) == page


def test_fast_packing_is_a_function_of_its_input() -> None:
    # the same input gives the same bytes, however often and in whatever order it is packed
    pages = [_page(seed).encode("utf-8") for seed in range(4)]
    first = [pack_bytes_fast(p) for p in pages]
    again = [pack_bytes_fast(p) for p in reversed(pages)][::-1]
    assert first == again
    assert len(set(first)) == 4


def test_report_rows_pack_and_digest_what_was_rendered() -> None:
    rendered = [("amber", "Turn 3 — hűség\n", _page(2)), ("", "public 珊瑚\n", _page(3))]
    rows = report_rows("g-1", 0, 3, rendered)
    for row, (seat, text, page) in zip(rows, rendered, strict=True):
        assert row["seat"] == seat and row["turn"] == 3 and row["game_id"] == "g-1"
        assert unpack(row["text_z"]) == text and unpack(row["html_z"]) == page
        # the digest `pbem replay --verify` checks: of text, NUL, page
        assert row["content_sha256"] == content_digest(text, page) == sha256_hex(f"{text}\0{page}")
        assert row["content_sha256"] == hashlib.sha256(f"{text}\0{page}".encode()).hexdigest()
    assert report_rows("g-1", 0, 3, rendered) == rows


def test_a_damaged_fast_packed_row_fails_as_zlib_does() -> None:
    # readers of stored rows (replay --verify, redaction) name a damaged one by catching zlib.error
    blob = pack_bytes_fast(_page(4).encode("utf-8"))
    try:
        unpack(b"\x00" + blob[1:])
    except zlib.error:
        pass
    else:
        raise AssertionError("a damaged stream was read")


def test_the_fast_unpack_reads_what_either_packing_wrote_and_fails_on_damage_as_zlib_does() -> None:
    page = _page(4)
    for blob in (pack_bytes_fast(page.encode("utf-8")), pack(page), zlib.compress(page.encode(), 9)):
        assert unpack_fast(blob) == unpack(blob) == page
    damaged = pack_bytes_fast(page.encode("utf-8"))
    for broken in (b"\x00" + damaged[1:], damaged[: len(damaged) // 2]):
        with pytest.raises(zlib.error):
            unpack_fast(broken)


def test_a_blob_just_packed_is_read_back_without_inflating_and_an_older_one_by_inflating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pbem.core import codec

    first = pack_text_fast("the public report of turn 7 " * 40)
    inflated: list[bytes] = []
    real = codec.fast_zlib.decompress

    def counting(blob: bytes) -> bytes:
        inflated.append(blob)
        return real(blob)

    monkeypatch.setattr(codec.fast_zlib, "decompress", counting)
    assert unpack_fast(bytes(first)) == "the public report of turn 7 " * 40  # equal bytes, another object
    assert inflated == []
    for n in range(codec._PACKED_LATELY_MOST):  # a turn's worth of other reports and more
        pack_text_fast(f"report {n}")
    assert unpack_fast(first) == "the public report of turn 7 " * 40
    assert inflated == [first]
    assert zlib.decompress(first).decode() == "the public report of turn 7 " * 40  # an ordinary stream


def _mail_like(seed: int) -> tuple[bytes, list[bytes]]:
    """A message of a seat's own bytes around pieces other mails share (as a report mail holds its
    turn's table and pictures), the pieces beginning alike as two PNGs' base64 do."""
    rng = random.Random(seed)
    own = [rng.randbytes(rng.choice([0, 5, 300, 2000, 9000])) for _ in range(4)]
    pieces = [
        b"iVBORw0KGgoAAAANSUhEUgAA" * 4 + rng.randbytes(rng.choice([200, 5000, 20000])) for _ in range(3)
    ]
    return own[0] + pieces[0] + own[1] + pieces[1] + own[2] + pieces[2] + own[3], pieces


@pytest.mark.parametrize("seed", range(12))
def test_a_message_packed_sharing_its_pieces_reads_back_exactly_and_the_same_bytes_cold_or_warm(
    seed: int,
) -> None:
    raw, pieces = _mail_like(seed)
    codec._SEGMENTS.clear()
    cold = codec.pack_bytes_sharing(raw, pieces)
    assert zlib.decompress(cold) == raw == unpack_message(cold)
    assert all(piece in codec._SEGMENTS for piece in pieces)  # kept for the next seat's mail
    warm = codec.pack_bytes_sharing(raw, [bytes(piece) for piece in pieces])  # equal, not the same
    assert warm == cold
    # a piece the message does not hold, or named out of order, is passed over: still exact
    stranger = random.Random(seed + 100).randbytes(3000)
    for shared in ([stranger, *pieces], [pieces[2], pieces[0]], [pieces[1], pieces[1]], []):
        assert zlib.decompress(codec.pack_bytes_sharing(raw, shared)) == raw


def test_a_message_sharing_pieces_packs_the_pieces_once_and_about_as_small() -> None:
    raw, pieces = _mail_like(3)
    other = b"another seat's own words" * 50 + pieces[0] + b"its own" + pieces[1] + pieces[2] + b"end"
    codec._SEGMENTS.clear()
    first, second = codec.pack_bytes_sharing(raw, pieces), codec.pack_bytes_sharing(other, pieces)
    assert zlib.decompress(second) == other
    for piece in pieces:  # each piece's stream is in both mails' packed bytes, made once
        assert codec._SEGMENTS[piece] in first and codec._SEGMENTS[piece] in second
    assert len(first) <= len(pack_bytes_fast(raw)) * 1.05 + 64


def test_the_pieces_kept_are_bounded() -> None:
    codec._SEGMENTS.clear()
    for seed in range(codec._SEGMENTS_MOST + 10):
        raw, pieces = _mail_like(seed)
        codec.pack_bytes_sharing(raw, pieces)
    assert len(codec._SEGMENTS) == codec._SEGMENTS_MOST


def _turn_pages(seed: int, languages: int = 1) -> list[tuple[str, str, str]]:
    """A turn's five reports, rendered: each seat's own words around the table of its language (~60 KB,
    the same in every page of that language), the last the public one."""
    rng = random.Random(seed)
    tables = [_page(seed * 10 + n) for n in range(languages)]
    rendered = []
    for n in range(5):
        head = f"<title>turn {seed} · seat {n}</title><style>td {{ color: red }}</style>" * rng.randint(1, 40)
        own = "<section>Yours alone: " + "".join(rng.choice("★abcé珊") for _ in range(rng.randint(0, 4000)))
        tail = own if n < 4 else "<div>the public report"
        page = head + '<div class="block" data-table>' + tables[n % languages] + "\n</div>\n" + tail
        rendered.append((f"seat{n}" if n < 4 else "", f"turn {seed}, seat {n}: " + own[:300], page))
    return rendered


@pytest.mark.parametrize(("seed", "languages"), [(1, 1), (2, 1), (3, 2), (4, 5)])
def test_a_turn_s_rows_each_pack_their_own_page_and_read_back_exactly(seed: int, languages: int) -> None:
    rendered = _turn_pages(seed, languages)
    rows = report_rows("g-1", 0, seed, rendered)
    for row, (seat, text, page) in zip(rows, rendered, strict=True):
        assert row["seat"] == seat
        # each row a plain stream of its own page: what any zlib, the stdlib's and ISA-L's read
        assert row["html_z"] == pack_bytes_fast(page.encode("utf-8"))
        assert row["text_z"] == pack_bytes_fast(text.encode("utf-8"))
        for blob, was in ((row["html_z"], page), (row["text_z"], text)):
            assert zlib.decompress(blob).decode("utf-8") == was == unpack(blob) == unpack_fast(bytes(blob))
        assert row["content_sha256"] == content_digest(text, page)
    assert report_rows("g-1", 0, seed, list(rendered)) == rows


def test_parts_packed_apart_read_back_as_their_join() -> None:
    raw = _page(9).encode("utf-8")
    piece = codec.Piece(raw, fast_zlib.deflate_joinable(raw))
    parts = [b"", b"short", piece, b"x" * 5000, piece, b""]
    blob = codec.pack_parts(parts)
    assert zlib.decompress(blob) == b"short" + piece.raw + b"x" * 5000 + piece.raw
    assert zlib.decompress(codec.pack_parts([])) == b""
