"""Size limits before any parsing: whatever a mail holds, a fetch stays within 200 MB and a few seconds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pbem.mail import limits

ROOT = Path(__file__).resolve().parents[2]


def encoded_words(count: int) -> bytes:
    return b"\r\n ".join(b"=?utf-8?q?caf=C3=A9_%d?=" % i for i in range(count))


BOMBS = {
    # 990 KB: a Subject of 14,000 RFC 2047 encoded words, under the 1 MB limit
    "encoded-words": b"Subject: " + encoded_words(14_000) + b"\r\n",
    # 480,000 plain words in one header
    "plain-words": b"Subject: " + b" ".join(b"w" for _ in range(480_000)) + b"\r\n",
    # 20,000 header fields
    "many-fields": b"".join(b"X-F%d: v\r\n" % i for i in range(20_000)),
    # over the size limit: only the header block is read, to answer "too large"
    "too-large": b"Subject: big\r\n",
}


def bomb(name: str) -> bytes:
    head = b"From: Ann <ann@example.org>\r\nTo: host@pbem.example.org\r\nMessage-ID: <b@example.org>\r\n"
    body = b"game: g\r\n" + (b"x" * 3_000_000 if name == "too-large" else b"orders: []\r\n")
    return head + BOMBS[name] + b"Content-Type: text/plain\r\n\r\n" + body


@pytest.mark.parametrize("name", list(BOMBS))
def test_a_header_bomb_is_read_within_200_mb_and_a_few_seconds(name: str, tmp_path: Path) -> None:
    raw = bomb(name)
    assert name == "too-large" or len(raw) < 1_000_000
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "mail" / "bomb_worker.py"),
            f"sqlite:///{tmp_path / 'db.sqlite'}",
        ],
        input=raw,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    outcome, cpu, peak_mb = done.stdout.decode().split()
    assert outcome in ("ignored", "rejected"), outcome
    assert float(cpu) < 10, f"{name}: {cpu} s of CPU"
    assert int(peak_mb) <= 200, f"{name}: peak {peak_mb} MB"  # the whole process, interpreter included


def test_an_ordinary_message_is_given_to_the_parser_unchanged() -> None:
    raw = b"From: a@example.org\r\nSubject: orders\r\n  folded\r\n\r\nbody\r\n"
    assert limits.bounded(raw, 1_000_000) == raw


def test_a_message_over_the_limit_keeps_only_its_headers_for_the_parser() -> None:
    raw = b"From: a@example.org\r\nSubject: x\r\n\r\n" + b"y" * 5000
    assert limits.bounded(raw, 1000) == b"From: a@example.org\r\nSubject: x\r\n\r\n"
