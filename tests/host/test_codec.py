"""The stored byte forms: reports packed by ISA-L read back exactly, by any zlib, and deterministically."""

from __future__ import annotations

import hashlib
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.codec import pack, pack_bytes_fast, pack_text_fast, sha256_hex, unpack, unpack_fast
from pbem.reports import content_digest, report_rows


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
    from pbem import codec

    first = pack_text_fast("the public report of turn 7 " * 40)
    inflated: list[bytes] = []
    real = codec.isal_zlib.decompress

    def counting(blob: bytes) -> bytes:
        inflated.append(blob)
        return real(blob)

    monkeypatch.setattr(codec.isal_zlib, "decompress", counting)
    assert unpack_fast(bytes(first)) == "the public report of turn 7 " * 40  # equal bytes, another object
    assert inflated == []
    for n in range(codec._PACKED_LATELY_MOST):  # a turn's worth of other reports and more
        pack_text_fast(f"report {n}")
    assert unpack_fast(first) == "the public report of turn 7 " * 40
    assert inflated == [first]
    assert zlib.decompress(first).decode() == "the public report of turn 7 " * 40  # an ordinary stream
