"""Crashes: ``pbem tick`` killed with SIGKILL at random moments loses and doubles nothing.

A template holds games with orders waiting: for half of them the orders were submitted already, for the
other half they wait as mail in an inbound Maildir, beside one press mail per game (to
all). An uninterrupted run copies the template and runs
``pbem tick`` (mail in from the Maildir, turns resolved, report mail queued and dropped into an outbox
Maildir) at a fixed moment T, then once more at T + 11 minutes, when every lease a dead tick held on an
outgoing mail has run out. A killed run copies the template, starts the same tick again and again and
kills each with SIGKILL after a delay drawn from a seeded RNG, then finishes with the same two ticks.
Both runs are compared: the database without ids and clock times (games, seats, turns, submissions,
inbound mail, reports, the outbox, notices) and the outbox Maildir, message by message.
"""

from __future__ import annotations

import collections
import contextlib
import email
import email.policy
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from sqlmodel import Session

from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.history import current_state, game_row
from proof import crash_mails, crash_notices
from proof.common import Figures, RandomChance, settings, shipped_games
from proof.crash_lobby import mask
from proof.orders_variants import envelope

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
#: after the outbox's claim on a mail (10 minutes) has run out
LATER = NOW + timedelta(minutes=11)
HOST_ADDRESS = "pbem@example.org"
TICK_HOST = "proof-tick"


@dataclass(frozen=True)
class Layout:
    """One run's folder: its database, the inbound Maildir and the outbox Maildir."""

    root: Path

    @property
    def db(self) -> Path:
        return self.root / "pbem.sqlite"

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def outbox(self) -> Path:
        return self.root / "outbox"


def _maildir(path: Path) -> None:
    for sub in ("new", "cur", "tmp"):
        (path / sub).mkdir(parents=True, exist_ok=True)


def _order_mail(seat: str, text: str, n: int, subject: str = "orders") -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{seat}@example.org"
    msg["To"] = HOST_ADDRESS
    msg["Subject"] = subject
    msg["Date"] = format_datetime(NOW - timedelta(hours=1))
    msg["Message-ID"] = make_msgid(idstring=f"proof{n}", domain="example.org")
    msg.set_content(text)
    return bytes(msg)


def build_template(root: Path, games_per_type: int, hook_port: int) -> tuple[Layout, dict[str, int]]:
    """Games with every pending seat's orders waiting: submitted, or as mail in the inbound Maildir; and
    the other mails' work (:mod:`proof.crash_mails`: welcomes, password resets, a bounce, reminders),
    with how much of each."""
    layout = Layout(root)
    root.mkdir(parents=True, exist_ok=True)
    _maildir(layout.inbox)
    engine = connect(f"sqlite:///{layout.db}")
    n = 0
    games: dict[str, dict[str, str]] = {}
    for game in shipped_games():
        for setting in settings(game, games_per_type, first_seed=500):
            game_id = f"crash-{game.name}-{setting.seed}"
            seats = [(s, f"{s}@example.org") for s in setting.seats]
            issued = create_game(
                engine, game.name, game_id, seats, seed=setting.seed, options=setting.options, now=NOW
            )
            games[game_id] = issued
            with Session(engine) as session:
                row = game_row(session, game_id)
                state = current_state(game, row)
            for seat in sorted(game.pending(state)):
                text = envelope(game_id, seat, 1, issued[seat], game.bot(state, seat, RandomChance(seat)))
                n += 1
                if n % 2:
                    receipt = orders.submit(engine, text, now=NOW - timedelta(hours=1))
                    assert receipt.accepted, receipt.errors
                else:
                    (layout.inbox / "new" / f"{n:04d}.proof:2,").write_bytes(_order_mail(seat, text, n))
            # press (issue 14): its row and its mails to every other seat are written with the mail's record
            writer = setting.seats[0]
            n += 1
            press = f"press\ngame: {game_id}\nplayer: {writer}\npassword: {issued[writer]}\nto: all\n\nHello."
            (layout.inbox / "new" / f"{n:04d}.proof:2,").write_bytes(_order_mail(writer, press, n, "press"))
    families = crash_mails.add_families(engine, games, layout.inbox)
    families["notice_targets"] = crash_notices.add_targets(engine, games, hook_port, NOW)
    engine.dispose()
    return layout, families


def copy_of(template: Layout, root: Path) -> Layout:
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(template.root, root)
    return Layout(root)


def tick_command(layout: Layout, moment: datetime) -> tuple[list[str], dict[str, str]]:
    pbem = str(Path(sys.executable).with_name("pbem"))
    argv = [
        pbem,
        "tick",
        "--db",
        f"sqlite:///{layout.db}",
        "--maildir",
        str(layout.inbox),
        "--now",
        moment.isoformat(),
        "--host",
        TICK_HOST,
        "--quiet",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(
        PBEM_OUTBOX=str(layout.outbox), PBEM_MAIL_FROM=HOST_ADDRESS, PBEM_LOG=str(layout.root / "tick.log")
    )
    return argv, env


def tick(layout: Layout, moment: datetime) -> float:
    """One uninterrupted tick; its duration in seconds."""
    argv, env = tick_command(layout, moment)
    started = time.monotonic()
    done = subprocess.run(argv, env=env, cwd=layout.root, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"pbem tick exited {done.returncode}: {done.stderr[-1000:]}")
    return time.monotonic() - started


def killed_tick(layout: Layout, moment: datetime, delay: float) -> bool:
    """A tick killed with SIGKILL after ``delay`` seconds; whether it was killed (not finished first)."""
    argv, env = tick_command(layout, moment)
    proc = subprocess.Popen(
        argv, env=env, cwd=layout.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def _rows(db: sqlite3.Connection, sql: str) -> collections.Counter[tuple[Any, ...]]:
    out: collections.Counter[tuple[Any, ...]] = collections.Counter()
    for row in db.execute(sql):
        # what is drawn at random (codes, the keys of passwords issued by the tick) masked: crash_lobby
        out[
            tuple(
                mask(zlib.decompress(v)) if isinstance(v, bytes) and v[:1] == b"x" else mask(v) for v in row
            )
        ] += 1
    return out


TABLES = {
    "games": "SELECT id, status, turn, epoch, state_sha256 FROM game",
    "seats": "SELECT game_id, name, misses, abandoned FROM seat",
    "turns": "SELECT game_id, epoch, number, state_sha256, orders_z, by_bot_json, events_z, chance_json, "
    "undone FROM turn",
    "submissions": "SELECT game_id, seat, epoch, turn, source, from_address, orders_json, receipt, status, "
    "errors FROM submission",
    "inbound": "SELECT key, from_address, outcome FROM inbound",
    "reports": "SELECT game_id, epoch, turn, seat, text_z, html_z FROM report",
    "outbox": "SELECT dedupe_key, game_id, to_addr, subject, status FROM outbox",
    "notices": "SELECT game_id, epoch, turn, seat, kind FROM cron_notice",
    # issue 32: the notices queued for the seats' notice URLs (status apart: a killed run's may be unsure)
    "pushes": "SELECT dedupe_key, game_id, title FROM push",
    # without its turn: a press mail whose claim a killed tick held (ten minutes) is handled after the
    # turn that the same tick then resolves, and is filed under the turn being played when it is handled
    "press": "SELECT game_id, sender, to_all, recipients_json, text FROM press",
    # a game master's mailed command (issue 14): its effect (the deadline moved once) and its record
    "gm_deadlines": "SELECT id, status, deadline_at FROM game WHERE id LIKE 'crash-gm-%'",
    "gm_actions": "SELECT game_id, action, detail FROM cron_gm_action WHERE action NOT IN ('gm')",
    # open games and replacements (issue 32): seats taken, codes used, vacancies filled
    "lobby_seats": "SELECT game_id, seat, email, position FROM lobby_seat",
    "lobby_games": "SELECT id, status FROM lobby_game",
    "lobby_codes": "SELECT kind, game_id, seat, email, used_at IS NULL FROM lobby_code",
    "vacancies": "SELECT game_id, seat, number, reason, filled_by FROM vacancy",
}


def snapshot(layout: Layout, hook: crash_notices.Webhook) -> dict[str, collections.Counter[Any]]:
    """The run's outcome, without ids and clock times: each table's rows, each delivered mail and each
    notice the webhook got (since the last snapshot), as multisets."""
    db = sqlite3.connect(layout.db)
    try:
        found = {name: _rows(db, sql) for name, sql in TABLES.items()}
    finally:
        db.close()
    mails: collections.Counter[Any] = collections.Counter()
    for sub in ("new", "cur"):
        folder = layout.outbox / sub
        if folder.is_dir():
            for file in folder.iterdir():
                mails[_identity(file.read_bytes())] += 1
    found["mails"] = mails
    found["webhook"] = hook.taken()
    return found


def differences(
    baseline: dict[str, collections.Counter[Any]], other: dict[str, collections.Counter[Any]]
) -> dict[str, tuple[int, int]]:
    """Per table: (rows the other run lacks, rows it has more of)."""
    out = {}
    for name, rows in baseline.items():
        lost = sum((rows - other[name]).values())
        extra = sum((other[name] - rows).values())
        if lost or extra:
            out[name] = (lost, extra)
    return out


def _kinds(rows: collections.Counter[Any]) -> collections.Counter[str]:
    """Outbox rows by the kind their key starts with (``report``, ``welcome``, ``reply``, ``reminder``…)."""
    out: collections.Counter[str] = collections.Counter()
    for row, count in rows.items():
        out[str(row[0]).split(":")[0].split("-")[0]] += count  # shift-TIME: a calendar notice
    return out


def _identity(raw: bytes) -> str:
    """A delivered mail by its recipient, subject and the message it answers: what is the same mail in
    any run. Its Message-ID and Date come from the moment it was composed (so a database rebuilt with
    the same game ids never reuses an id that mail clients would drop as seen), and a crash moves that
    moment; a true double is the same identity twice, a loss one missing."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return str(mask(f"{msg['To']} «{msg['Subject']}» {msg['In-Reply-To'] or ''}"))


def run(folder: Path, kills: int, games_per_type: int = 2, kills_per_run: int = 5, seed: int = 8) -> Figures:
    """At least ``kills`` SIGKILLs, ``kills_per_run`` per killed run, each compared with the baseline."""
    figures = Figures()
    figures.set("crash.lost_or_doubled", 0, goal_zero=True)
    figures.set("crash.db_differences", 0, goal_zero=True)
    figures.set("crash.kills", 0)
    figures.set("crash.runs", 0)
    figures.set("crash.notices_unsure", 0)
    once = killed_after_accepting(folder / "after-accepting")
    doubled = {k: v for k, v in once.items() if v != 1}
    figures.set("crash.after_accepting.doubled", len(doubled))
    if doubled:
        figures.add("crash.lost_or_doubled", len(doubled))
        for key, count in doubled.items():
            figures.find(
                f"crash: a tick killed after the transport accepted a mail: it went {count} times: {key}"
            )
    rng = random.Random(seed)
    hook = crash_notices.Webhook()
    try:
        return _campaign(folder, kills, games_per_type, kills_per_run, seed, figures, rng, hook)
    finally:
        hook.close()


def _campaign(
    folder: Path,
    kills: int,
    games_per_type: int,
    kills_per_run: int,
    seed: int,
    figures: Figures,
    rng: random.Random,
    hook: crash_notices.Webhook,
) -> Figures:
    template, families = build_template(folder / "template", games_per_type, hook.port)
    for name, count in families.items():
        figures.set(f"crash.work.{name}", count)  # what each kind of mail put into the template
    baseline = copy_of(template, folder / "baseline")
    duration = tick(baseline, NOW)
    tick(baseline, LATER)
    expected = snapshot(baseline, hook)
    figures.set("crash.tick_seconds", round(duration, 2))
    figures.set("crash.mails_expected", sum(expected["mails"].values()))
    figures.set("crash.turns_expected", sum(expected["turns"].values()))
    figures.set("crash.press_expected", sum(expected["press"].values()))
    figures.set("crash.gm_actions_expected", sum(expected["gm_actions"].values()))
    figures.set("crash.notices_expected", sum(expected["webhook"].values()))
    if sum(expected["webhook"].values()) != sum(expected["pushes"].values()):
        figures.find("crash: the uninterrupted run did not post every notice it queued exactly once")
    for kind, count in sorted(_kinds(expected["outbox"]).items()):
        figures.set(f"crash.mails_expected.{kind}", count)
    bounced = sum(c for row, c in expected["outbox"].items() if row[-1] == "bounced")
    figures.set("crash.outbox_bounced_expected", bounced)
    if bounced != families.get("bounce", 0):
        figures.find(f"crash: the uninterrupted run marked {bounced} mails bounced, not {families['bounce']}")
    empty = Layout(folder / "startup")  # no games at all: what a tick costs before any work
    _maildir(empty.inbox)
    connect(f"sqlite:///{empty.db}").dispose()
    # on a busy machine starting up can take as long as the work: never more than half the window
    startup = min(0.5 * duration, tick(empty, NOW))
    run_number = 0
    while figures.values["crash.kills"] < kills:  # type: ignore[operator]
        run_number += 1
        layout = copy_of(template, folder / f"killed-{run_number}")
        hook.taken()  # what the webhook got before this run is not this run's
        killed_here = 0
        # restart until a tick gets through; each restart has less left to do, so its delay is shorter
        while killed_here < kills_per_run:
            left = (duration - startup) * 0.7**killed_here
            if not killed_tick(layout, NOW, startup + rng.uniform(0, left)):
                break
            killed_here += 1
        figures.add("crash.kills", killed_here)
        figures.add("crash.runs")
        tick(layout, NOW)
        tick(layout, LATER)
        got_all = snapshot(layout, hook)
        unsure = crash_notices.unsure(layout.db)
        figures.add("crash.notices_unsure", unsure)
        diff = differences(expected, got_all)
        # a notice whose sender was killed between taking it and the target's answer is marked unsure and
        # not sent again (pbem.outbox.notices: at most once, since a chat cannot drop a duplicate); those
        # are counted above, and only a notice lost beyond them is a finding
        if diff.get("webhook", (0, 0))[1] == 0 and diff.get("webhook", (0, 0))[0] <= unsure:
            diff.pop("webhook", None)
        lost_or_doubled = {
            k: v
            for k, v in diff.items()
            if k
            in (
                *("mails", "submissions", "turns", "outbox", "inbound", "press", "gm_deadlines"),
                *("gm_actions", "lobby_seats", "lobby_games", "lobby_codes", "vacancies"),
                *("pushes", "webhook"),
            )
        }
        if lost_or_doubled:
            figures.add("crash.lost_or_doubled", sum(a + b for a, b in lost_or_doubled.values()))
            got = got_all["mails"]
            for key, count in (got_all["webhook"] - expected["webhook"]).items():
                figures.find(
                    f"crash: run {run_number} (seed {seed}): notice posted {count} more time(s): {key}"
                )
            for key, count in (expected["webhook"] - got_all["webhook"]).items():
                figures.find(f"crash: run {run_number} (seed {seed}): notice lost ({count}): {key}")
            for raw, count in (got - expected["mails"]).items():
                where = f"crash: run {run_number} (seed {seed})"
                figures.find(f"{where}: mail delivered {count} more time(s): {raw}")
            for raw, count in (expected["mails"] - got).items():
                figures.find(f"crash: run {run_number} (seed {seed}): mail lost ({count}): {raw}")
        other = {k: v for k, v in diff.items() if k not in lost_or_doubled}
        if other:
            figures.add("crash.db_differences", sum(a + b for a, b in other.values()))
        if diff:
            figures.find(f"crash: run {run_number} (seed {seed}) differs from the uninterrupted run: {diff}")
        shutil.rmtree(layout.root)
    figures.set("crash.startup_seconds", round(startup, 2))
    return figures


class _Killed(BaseException):
    """Stands for SIGKILL inside one process: nothing after it runs, no ``except Exception`` stops it."""


class _DiesAfterAccepting:
    """A Maildir transport whose process dies right after its first message was accepted: the moment
    between "the server accepted the mail" and "the outbox marked it sent"."""

    def __init__(self, path: Path) -> None:
        from pbem.outbox.transport import MaildirTransport

        self.inner = MaildirTransport(path)
        self.delivered = 0

    def __enter__(self) -> _DiesAfterAccepting:
        self.inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(*exc)

    def deliver(self, sender: str, recipient: str, message: bytes) -> None:
        self.inner.deliver(sender, recipient, message)
        raise _Killed


def killed_after_accepting(folder: Path) -> collections.Counter[str]:
    """Deliver the outbox with a process that dies right after the first acceptance, then again once its
    claim on that mail ran out; how many times each mail (by Message-ID) reached the Maildir."""
    from pbem import outbox
    from pbem.outbox.settings import load_settings
    from pbem.outbox.transport import MaildirTransport

    folder.mkdir(parents=True, exist_ok=True)
    engine = connect(f"sqlite:///{folder / 'mail.sqlite'}")
    game = shipped_games()[0]
    seats = [(s, f"{s}@example.org") for s in settings(game, 1)[0].seats]
    create_game(engine, game.name, "mail-once", seats, seed=1, now=NOW)
    mail = load_settings(env={"PBEM_MAIL_FROM": HOST_ADDRESS})
    outbox.enqueue_reports(engine, NOW, settings=mail)
    box = folder / "outbox"
    with contextlib.suppress(_Killed):
        outbox.send(engine, _DiesAfterAccepting(box), NOW, settings=mail)
    outbox.send(engine, MaildirTransport(box), LATER, settings=mail)
    engine.dispose()
    found: collections.Counter[str] = collections.Counter()
    for sub in ("new", "cur"):
        for file in (box / sub).iterdir():
            found[_identity(file.read_bytes())] += 1
    return found
