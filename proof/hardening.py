"""The hardening families (issue 20): malformed and non-ASCII addresses, poison MIME from a fuzzer,
header bombs, clock jumps and skew between ticks. Each is run against real parts: a real SQLite file,
a real SMTP server (aiosmtpd), the host's own fetch, send and tick.

Figures whose goal is zero: mails lost or stuck, tracebacks (an exception escaping the host), messages
left ``processing``, bad addresses accepted at the door, a fetch over 200 MB, a host frozen or its
deadlines moved by a clock jump, mails sent twice beyond the one in flight when a skewed sender took over.
"""

from __future__ import annotations

import logging
import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import Session, select

from pbem import outbox
from pbem.intake.addresses import AddressError, normalise
from pbem.mail import inbound, sources
from pbem.outbox.message import header_fields, new_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.storage.db import connect
from pbem.storage.models import GameRow, InboundRow, OutboxRow
from proof.common import Figures
from proof.mime_fuzz import fuzzed

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]
SETTINGS = MailSettings(from_addr="host@pbem.example.org", retry_seconds=60, max_attempts=3)

BAD_ADDRESSES = [
    "<ann@example.org>", "ann@example.org,cy@example.org", "ann@@example.org", "ann@localhost",
    "josé@example.org", "john.@example.org", "a..b@example.org", "a\x7fb@example.org", "ann@exa mple.org",
    "ann@-example.org", "ann@example..org", "ann@exa\tmple.org", "ann@xn--zz.org", "", "@example.org",
    "ann@", "ann@exa\u2028mple.org", "Ann <ann@example.org>", "ann@[127.0.0.1]", "ann@123",
]  # fmt: skip
OUTSIDER_FROMS = ["x@exämple.org", "josé@example.org", "john.@example.org", "a..b@x.org", "ann@localhost"]


def _smtp() -> tuple[object, int, list[bytes]]:
    from aiosmtpd.controller import Controller

    received: list[bytes] = []

    class Keep:
        async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
            received.append(bytes(envelope.original_content or b""))  # type: ignore[attr-defined]
            return "250 2.0.0 accepted"

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    return controller, port, received


def addresses(figures: Figures) -> None:
    accepted = [a for a in BAD_ADDRESSES if _accepts(a)]
    figures.set("hardening.bad_addresses_tried", len(BAD_ADDRESSES))
    figures.set("hardening.bad_addresses_accepted", len(accepted), goal_zero=True)
    for address in accepted:
        figures.find(f"address accepted at the door: {address!r}")


def _accepts(address: str) -> bool:
    try:
        normalise(address)
    except AddressError:
        return False
    return True


def poison_and_outsiders(folder: Path, figures: Figures, messages: int, seed: int) -> None:
    """Fuzzed mail and mail from unanswerable or non-ASCII senders, mixed with a player's good mail,
    through fetch and a real SMTP send pass: every good reply delivered, nothing raised or stuck."""
    engine = connect(f"sqlite:///{folder / 'poison.sqlite'}")
    rng = random.Random(seed)
    box = folder / "in"
    for sub in ("new", "cur", "tmp"):
        (box / sub).mkdir(parents=True, exist_ok=True)
    good_keys = []
    for n in range(messages):
        if n % 5 == 0:
            raw = _plain(f"good-{n}@example.org", f"question {n}", n)
            good_keys.append(f"good-{n}@example.org")
        elif n % 5 == 1:
            raw = _plain(OUTSIDER_FROMS[n % len(OUTSIDER_FROMS)], "hello", n)
        else:
            raw = fuzzed(rng, n)
        (box / "new" / f"m{n:06d}").write_bytes(raw)
    raised = 0
    printed = _LibraryTracebacks()
    logging.getLogger().addHandler(printed)
    try:
        handled = inbound.fetch(engine, sources.read_maildir(box), SETTINGS, START)
    except Exception as exc:
        raised, handled = 1, []
        figures.find(f"fetch raised {type(exc).__name__}: {exc}")
    finally:
        logging.getLogger().removeHandler(printed)
    # a library's own log.exception bypasses the host's one-line log handlers: a traceback on stderr
    figures.set("hardening.tracebacks_printed", len(printed.seen), goal_zero=True)
    for record in printed.seen[:3]:
        figures.find(f"a traceback was printed by {record.name}: {record.getMessage()}")
    controller, port, _received = _smtp()
    try:
        result = outbox.send(engine, SmtpTransport(f"smtp://127.0.0.1:{port}"), START, settings=SETTINGS)
    except Exception as exc:
        raised += 1
        figures.find(f"send raised {type(exc).__name__}: {exc}")
        result = outbox.SendResult()
    finally:
        controller.stop()  # type: ignore[attr-defined]
    with Session(engine) as session:
        stuck = session.exec(select(InboundRow).where(InboundRow.outcome == "processing")).all()
        pending = session.exec(select(OutboxRow).where(OutboxRow.status == "pending")).all()
        to_good = {r.to_addr for r in session.exec(select(OutboxRow).where(OutboxRow.status == "sent"))}
    lost = [a for a in good_keys if a not in to_good]
    figures.set("hardening.poison_messages", messages)
    figures.set("hardening.poison_errors", sum(h.outcome == "error" for h in handled), goal_zero=True)
    figures.set("hardening.poison_quarantined", sum(h.outcome == "quarantined" for h in handled))
    figures.set("hardening.tracebacks", raised, goal_zero=True)
    figures.set("hardening.inbound_stuck", len(stuck), goal_zero=True)
    figures.set("hardening.mails_lost_or_stuck", len(lost) + len(pending), goal_zero=True)
    figures.set("hardening.mails_sent", len(result.sent))
    for address in lost[:5]:
        figures.find(f"the reply to {address} was not delivered")
    engine.dispose()


def _plain(frm: str, body: str, n: int) -> bytes:
    return (
        f"From: {frm}\r\nTo: host@pbem.example.org\r\nSubject: q {n}\r\nMessage-ID: <p{n}@example.org>\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def header_bombs(folder: Path, figures: Figures) -> None:
    """Each bomb fetched in a child process of its own, its peak memory read there."""
    from tests.mail.test_limits import BOMBS, bomb

    worst = 0
    for name in BOMBS:
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "tests" / "mail" / "bomb_worker.py"),
                f"sqlite:///{folder / f'{name}.sqlite'}",
            ],
            input=bomb(name),
            capture_output=True,
            timeout=300,
            cwd=ROOT,
        )
        if done.returncode != 0:
            figures.add("hardening.bombs_over_200mb")
            figures.find(f"header bomb {name}: {done.stderr.decode()[-300:]}")
            continue
        _outcome, _cpu, peak = done.stdout.decode().split()
        worst = max(worst, int(peak))
        if int(peak) > 200:
            figures.add("hardening.bombs_over_200mb")
            figures.find(f"header bomb {name}: peak {peak} MB")
    figures.set("hardening.fetch_peak_mb", worst)
    figures.values.setdefault("hardening.bombs_over_200mb", 0)
    figures.set("hardening.bombs_over_200mb", figures.values["hardening.bombs_over_200mb"], goal_zero=True)


def clocks(folder: Path, figures: Figures, jumps: int) -> None:
    """Ticks whose clock jumps a random way (a year ahead, a day back, hours ahead), each followed by a
    tick with the right clock: the host must never be frozen, and a jump must move no deadline."""
    from pbem.host.tick import TickSettings, tick
    from proof.common import shipped_games

    engine = connect(f"sqlite:///{folder / 'clocks.sqlite'}")
    from pbem.play.create import create_game

    game = shipped_games()[0]
    create_game(
        engine, game.name, "c1", [("ann", "ann@example.org"), ("bob", "bob@example.org")], seed=1,
        turn_seconds=7 * 86400, now=START,
    )  # fmt: skip
    settings = TickSettings(host="proof")
    rng = random.Random(jumps)
    right = START
    frozen = moved = 0
    for _ in range(jumps):
        right += timedelta(minutes=5)
        deadline_before = _deadline(engine)
        jump = rng.choice([timedelta(days=365), timedelta(days=45), -timedelta(days=1), timedelta(days=400)])
        tick(engine, right + jump, settings=settings)
        if jump > timedelta(days=30) and _deadline(engine) != deadline_before:
            moved += 1
        right += timedelta(minutes=5)
        after = tick(engine, right, settings=settings)
        if after.games_seen == 0:
            frozen += 1
    figures.set("hardening.clock_jumps", jumps)
    figures.set("hardening.clock_frozen_ticks", frozen, goal_zero=True)
    figures.set("hardening.clock_deadlines_moved", moved, goal_zero=True)
    engine.dispose()


def _deadline(engine: object) -> datetime | None:
    with Session(engine) as session:  # type: ignore[arg-type]
        row = session.get(GameRow, "c1")
        return row.deadline_at if row else None


def skew(folder: Path, figures: Figures, mails: int) -> None:
    """A sender whose clock is a lease and a minute ahead takes over while another is delivering: only
    the one mail in flight may go twice (docs/delivery.md)."""
    engine = connect(f"sqlite:///{folder / 'skew.sqlite'}")
    for n in range(mails):
        msg = new_message(
            header_fields(SETTINGS, to="ann@example.org", subject=f"s{n}", key=f"s{n}", now=START)
        )
        msg.set_content(f"mail {n}\n")
        with Session(engine) as session:
            outbox.queue(session, key=f"s{n}", to="ann@example.org", message=msg, now=START)
            session.commit()
    controller, port, received = _smtp()
    url = f"smtp://127.0.0.1:{port}"

    class Slow(SmtpTransport):
        calls = 0

        def deliver(self, sender: str, recipient: str, message: bytes) -> None:
            Slow.calls += 1
            if Slow.calls == 1:
                ahead = START + timedelta(seconds=outbox.CLAIM_SECONDS + 60)
                outbox.send(engine, SmtpTransport(url), ahead, settings=SETTINGS)
            super().deliver(sender, recipient, message)

    try:
        outbox.send(engine, Slow(url), START, settings=SETTINGS, batch=mails)
    finally:
        controller.stop()  # type: ignore[attr-defined]
    doubled = len(received) - mails
    figures.set("hardening.skew_mails", mails)
    figures.set("hardening.skew_sent_twice_beyond_in_flight", max(0, doubled - 1), goal_zero=True)
    with Session(engine) as session:
        pending = session.exec(select(OutboxRow).where(OutboxRow.status != "sent")).all()
    figures.set("hardening.skew_mails_lost", len(pending), goal_zero=True)
    engine.dispose()


class _LibraryTracebacks(logging.Handler):
    """Records at WARNING or above that carry a traceback and come from outside the host's loggers
    (which the tick writes in one line): Python's last-resort handler would print them in full."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and not record.name.startswith("pbem"):
            self.seen.append(record)


def run(folder: Path, *, messages: int = 600, jumps: int = 20, mails: int = 50, seed: int = 20) -> Figures:
    figures = Figures()
    addresses(figures)
    poison_and_outsiders(folder, figures, messages, seed)
    header_bombs(folder, figures)
    clocks(folder, figures, jumps)
    skew(folder, figures, mails)
    return figures
