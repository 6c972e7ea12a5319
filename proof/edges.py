"""The third pass's families (issue 33): the longest values on SQLite and on PostgreSQL, decoders' edge
cases in mail, and hostile archives. Each runs the host's own code on real databases.

- long values: a whole game at the limits (a game id of 64 characters, seat names of 32, every address
  of 254) made, welcomed, played by mail (orders, public press to an observer, a game master's command),
  resolved by ticks that mail every report, rolled back, exported and imported, on SQLite and on
  PostgreSQL, which refuses a value longer than its column where SQLite stores it;
- decoders: a player's mail whose text part declares a charset whose decoder has edges (UTF-7 with a
  lone surrogate, punycode, UTF-16 cut mid-character, UTF-32 out of range, codecs Python knows that are
  not text codecs, a charset nobody knows, a Subject in UTF-7): each must be answered, without a
  traceback, in under a second of CPU;
- hostile archives: an archive changed in each way an attacker or a damaged disk would (settings of the
  wrong type or range, header lines and markup as observers, times in the years 1 and 9999, numbers past
  their columns) is refused in words (exit 1) with nothing stored, on both databases.

Figures whose goal is zero: the long-value runs that failed, the decoder mails left unanswered, raising
or over a second, the hostile archives stored or refused with anything but words.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.archive.files import build_archive, dump, import_game
from pbem.core.errors import UserError
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.play.create import create_game
from pbem.play.orders import template
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import GameRow
from proof.common import Figures, shipped_games

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SETTINGS = MailSettings(from_addr="host@pbem.example.org", from_name="pbem proof")
SLOW_SECONDS = 1.0


def _set(*path: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets ``path[:-1]`` of an archive to ``path[-1]``."""

    def change(data: dict[str, Any]) -> None:
        *keys, last, value = path
        for key in keys:
            data = data[key]
        data[last] = value

    return change


#: an archive changed as an attacker or a damaged disk would: (the change, words the refusal holds)
HOSTILE_ARCHIVES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "turn_seconds: soon": (
        _set("game", "settings", "turn_seconds", "soon"),
        "game.settings.turn_seconds 'soon'",
    ),
    "nmr: explode": (
        _set("game", "settings", "nmr", "explode"),
        "game.settings.nmr 'explode': use one of wait",
    ),
    "abandon_after: -3": (
        _set("game", "settings", "abandon_after", -3),
        "game.settings.abandon_after -3: write a number of missed turns from 1",
    ),
    "require_from_match: maybe": (
        _set("game", "settings", "require_from_match", "maybe"),
        "require_from_match 'maybe': write true or false",
    ),
    "turn_seconds past SQLite": (_set("game", "settings", "turn_seconds", 2**70), "turn_seconds 1180591620"),
    "turn_seconds past any date": (_set("game", "settings", "turn_seconds", 2**40), "from 1 to 315360000"),
    "grace a string": (_set("game", "settings", "grace_seconds", "1h"), "grace_seconds '1h'"),
    "absence: nap": (_set("game", "absence", "nap"), "game.absence 'nap': use one of bot, extend"),
    "absence_days: -5": (_set("game", "absence_days", -5), "game.absence_days -5: write a number of days"),
    "observer with a Bcc line": (
        _set("observers", ["kibitz@example.org\r\nBcc: all@example.org"]),
        "observers[0]: 'kibitz@example.org\\x0d\\x0aBcc",
    ),
    "observer as markup": (
        _set("observers", ["<script>alert(1)</script>"]),
        "observers[0]: '<script>alert(1)</script>' is not a mail address",
    ),
    "observer of 255 characters": (
        _set("observers", [f"{'o' * 64}@{'a' * 63}.{'b' * 63}.{'c' * 58}.org"]),
        "observers[0]",
    ),
    "created in year 9999": (
        _set("game", "created_at", "9999-12-31T23:59:59-05:00"),
        "game.created_at '9999-12-31T23:59:59-05:00': write a time from 1970",
    ),
    "created in year 0001": (
        _set("game", "created_at", "0001-01-01T00:00:00+05:00"),
        "game.created_at '0001",
    ),
    "deadline in year 9999": (_set("game", "deadline_at", "9999-12-31T23:00:00+00:00"), "game.deadline_at"),
    "resolved in year 9999": (
        _set("turns", 0, "resolved_at", "9999-12-31T23:59:59-05:00"),
        "turn 0 (epoch 0): resolved_at",
    ),
    "epoch past the column": (_set("game", "epoch", 2**40), "game.epoch '1099511627776'"),
    "misses past the column": (_set("players", 0, "misses", 2**70), "players.0.misses"),
    "clock with a stranger key": (_set("game", "clock", {"turn": 0, "bogus": 1}), "game.clock.bogus"),
    "seed past 64 bits": (_set("game", "seed", 2**64), "game section: seed"),
}


BACKENDS = ("sqlite", "postgresql")


@contextlib.contextmanager
def _database(folder: Path, name: str, backend: str) -> Iterator[str]:
    """The URL of a fresh database of ``backend``: an SQLite file, or a PostgreSQL database dropped
    afterwards."""
    from tests.cron.conftest import fresh_pg_database

    if backend == "sqlite":
        yield f"sqlite:///{folder / f'{name}.sqlite'}"
        return
    with fresh_pg_database("pbem_edges") as url:
        yield url


def long_values(folder: Path, figures: Figures) -> None:
    """The test of a whole game at the limits (``tests/cron/test_longest_values.py``), once per backend."""
    import pytest

    from tests.cron import test_longest_values as limits

    failed = 0
    for backend in BACKENDS:
        work = folder / f"long-{backend}"
        work.mkdir(exist_ok=True)
        try:
            with _database(work, "game", backend) as url, _database(work, "moved", backend) as other:
                engine = connect(url)
                upgrade(engine)
                try:
                    limits.test_a_game_at_the_longest_values_plays_by_mail_and_moves(engine, other, work)
                finally:
                    engine.dispose()
        except (Exception, pytest.fail.Exception) as exc:  # an assertion, a database's refusal
            failed += 1
            figures.find(f"long values on {backend}: {type(exc).__name__}: {str(exc)[:300]}")
    figures.set("edges.long_value_backends", len(BACKENDS))
    figures.set("edges.long_value_failures", failed, goal_zero=True)


def _decoder_cases(orders: str, press: str, scale: float) -> dict[str, tuple[str, bytes]]:
    """Each case's charset (whose decoder has an edge) and the text part's bytes: orders, or a command."""
    punycode = max(10_000, round(300_000 * scale))
    return {
        "press in utf-7, a lone surrogate": ("utf-7", press.encode("utf-7") + b"+3P8-\n"),
        "help in utf-7, a lone surrogate": ("utf-7", b"help\n+3P8-\n"),
        "password in utf-7, a lone surrogate": ("utf-7", b"password\ngame: d1\nplayer: ann\n+3P8-\n"),
        "press in punycode": ("punycode", press.encode() + b"-" + b"9" * 100),
        "utf-7": ("utf-7", orders.encode("utf-7")),
        "utf-7, a lone surrogate": ("utf-7", orders.encode("utf-7") + b"\n+3P8-\n"),
        "utf-7, an open shift": ("utf-7", orders.encode("utf-7") + b"\n+AAAAAAAA"),
        "punycode": ("punycode", b"a" * punycode + b"-" + b"9" * 200),
        "utf-16 cut mid-character": ("utf-16", orders.encode("utf-16") + b"\x00"),
        "utf-32 out of range": ("utf-32", orders.encode("utf-32") + b"\xff\xff\xff\x7f"),
        "utf-8 overlong and surrogate bytes": ("utf-8", orders.encode() + b"\n\xc0\xaf \xed\xa0\x80\n"),
        "idna": ("idna", b"x" * 5_000),
        "base64_codec": ("base64_codec", b"!!not base64!!"),
        "zlib_codec": ("zlib_codec", b"x\x9c" + b"\x00" * 64),
        "bz2_codec": ("bz2_codec", b"BZh9" + b"\x00" * 64),
        "hex_codec": ("hex_codec", b"zz"),
        "uu_codec": ("uu_codec", b"begin 666 x\n"),
        "rot_13": ("rot_13", orders.encode()),
        "a charset nobody knows": ("x-no-such-charset", orders.encode()),
    }


def decoders(folder: Path, figures: Figures, scale: float) -> None:
    """A player's mail per decoder edge, an hour apart (no answer is held back by a cap)."""
    engine = connect(f"sqlite:///{folder / 'decoders.sqlite'}")
    game = shipped_games()[0]
    seats = [("ann", "ann@example.org"), ("bob", "bob@example.org")]
    issued = create_game(engine, game.name, "d1", seats, seed=3, now=START)
    seat = next(s for s, _ in seats if _owes(engine, s))
    orders = template(engine, "d1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
    press = f"press\ngame: d1\nplayer: {seat}\npassword: {issued[seat]}\nto: all\n\nHello, all.\n"
    cases = _decoder_cases(orders, press, scale)
    cases["a Subject in utf-7 with a lone surrogate"] = ("utf-8", orders.encode())
    unanswered = raised = slow = 0
    slowest = 0.0
    for n, (name, (charset, body)) in enumerate(cases.items()):
        subject = "=?utf-7?q?orders_+2D3cAA-?=" if "Subject" in name else f"orders {n}"
        raw = _mail(dict(seats)[seat], subject, charset, body, n)
        cpu = time.process_time()
        try:
            handled = inbound.handle(engine, raw, SETTINGS, START + timedelta(hours=2 * n))
        except Exception as exc:
            raised += 1
            figures.find(f"decoder {name}: handle raised {type(exc).__name__}: {exc}")
            continue
        spent = time.process_time() - cpu
        slowest = max(slowest, spent)
        if spent > SLOW_SECONDS:
            slow += 1
            figures.find(f"decoder {name}: {spent:.1f} s of CPU")
        if not handled.replied:
            unanswered += 1
            figures.find(f"decoder {name}: {handled.outcome} ({handled.reason}), not answered")
    engine.dispose()
    figures.set("edges.decoder_mails", len(cases))
    figures.set("edges.decoder_unanswered", unanswered, goal_zero=True)
    figures.set("edges.decoder_tracebacks", raised, goal_zero=True)
    figures.set("edges.decoder_over_1s", slow, goal_zero=True)
    figures.set("edges.decoder_max_cpu_ms", round(slowest * 1000, 1))


def _owes(engine: Engine, seat: str) -> bool:
    try:
        template(engine, "d1", seat)
    except UserError:
        return False
    return True


def _mail(frm: str, subject: str, charset: str, body: bytes, n: int) -> bytes:
    head = (
        f"From: {frm}\r\nTo: {SETTINGS.from_addr}\r\nSubject: {subject}\r\n"
        f"Message-ID: <edge{n}@example.org>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset={charset}\r\n"
        "Content-Transfer-Encoding: 8bit\r\n\r\n"
    )
    return head.encode("ascii") + body + b"\r\n"


def hostile_archives(folder: Path, figures: Figures) -> None:
    """Each hostile archive imported on both databases: refused in words, nothing stored."""
    source = connect(f"sqlite:///{folder / 'source.sqlite'}")
    game = shipped_games()[0]
    create_game(source, game.name, "h1", [("ann", "ann@example.org"), ("bob", "bob@example.org")], seed=4)
    sound = build_archive(source, "h1", include_secrets=True)
    source.dispose()
    stored = unworded = tried = 0
    for backend in BACKENDS:
        with _database(folder, "target", backend) as url:
            engine = connect(url)
            upgrade(engine)
            for n, (name, (change, words)) in enumerate(HOSTILE_ARCHIVES.items()):
                tried += 1
                data = copy.deepcopy(sound)
                change(data)
                path = folder / "hostile.yaml"
                path.write_text(dump(data), encoding="utf-8")
                try:
                    import_game(engine, str(path), game_id=f"h{n}")
                    figures.find(f"archive {name} on {backend}: imported")
                except UserError as exc:
                    if words not in str(exc):
                        unworded += 1
                        figures.find(f"archive {name} on {backend}: refused as {str(exc)[:200]!r}")
                except Exception as exc:
                    unworded += 1
                    figures.find(f"archive {name} on {backend}: {type(exc).__name__}: {str(exc)[:200]}")
            with Session(engine) as session:
                stored += session.exec(select(func.count()).select_from(GameRow)).one()
            engine.dispose()
    figures.set("edges.hostile_archives", tried)
    figures.set("edges.hostile_archives_stored", stored, goal_zero=True)
    figures.set("edges.hostile_archives_not_in_words", unworded, goal_zero=True)


def run(folder: Path, *, scale: float = 1.0) -> Figures:
    figures = Figures()
    hostile_archives(folder, figures)
    decoders(folder, figures, scale)
    long_values(folder, figures)
    return figures
