"""Notices at the players' notice URLs (issue 32): queued with the event they tell of, sent once by the
send step, exactly once across a process killed between queueing and sending and between sending and
marking; in the seat's language; the URL (a secret) nowhere but its own row. The webhook is a small
http.server on 127.0.0.1 (apprise's json:// target): the network has nothing else."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import files as archive
from pbem.cli.app import main
from pbem.core.errors import UserError
from pbem.host.tick import TickSettings, tick
from pbem.mail import commands
from pbem.outbox import notices
from pbem.outbox.settings import MailSettings
from pbem.storage.models import NoticeTargetRow, PushRow, SeatRow
from tests.cron.conftest import START, new_game, owes, send_orders
from tests.players.databases import on_both_databases  # noqa: F401  (the fixture db)
from tests.players.webhook import webhook

H = timedelta(hours=1)
MAIL = MailSettings(from_addr="host@example.org")
SETTINGS = TickSettings(host="test", remind_before=12 * 3600, outage_after=30 * 86400)
WORKER = Path(__file__).with_name("notice_worker.py")


def name_target(engine: Engine, game_id: str, seat: str, url: str) -> None:
    with Session(engine) as session:
        notices.add_target(session, game_id, seat, notices.check_url(url), START)
        session.commit()


def pushes(engine: Engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        rows = session.exec(select(PushRow).order_by(PushRow.id)).all()  # type: ignore[arg-type]
    return [(row.dedupe_key, row.status) for row in rows]


def test_your_move_and_the_end_reach_the_webhook_once_each_in_the_seats_language(
    db: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    passwords = new_game(db, "n-1", rounds=1)  # a bid (both seats), a dive (the winner), the end
    with webhook() as hook:
        name_target(db, "n-1", "red", hook.url())
        name_target(db, "n-1", "blue", hook.url("blue"))
        with Session(db) as session:
            blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
            blue.language = "hu"
            session.add(blue)
            session.commit()
        for seat in ("red", "blue"):
            send_orders(db, "n-1", seat, passwords[seat], START + H)
        tick(db, START + 2 * H, settings=SETTINGS, mail=MAIL)  # the bid resolves: "your move" queued
        [diver] = owes(db, "n-1")
        assert [status for _key, status in pushes(db)] == ["pending"]  # for the diver only
        assert hook.got == []  # queued, not sent: the send step sends
        assert len(notices.send(db, START + 2 * H).sent) == 1
        assert notices.send(db, START + 3 * H).sent == []  # nothing twice
        assert hook.titles() == [
            "[pbem n-1] 2. lépés: te jössz" if diver == "blue" else "[pbem n-1] turn 2: your move"
        ]
        if diver == "red":
            assert hook.got[0]["message"] == (
                "Turn 2 of n-1 waits for your orders, due by Mar 3, 2026 11:00 UTC. "
                "The report is in your mail."
            )
        send_orders(db, "n-1", diver, passwords[diver], START + 3 * H)
        tick(db, START + 4 * H, settings=SETTINGS, mail=MAIL)  # the dive: the game is over
        tick(db, START + 5 * H, settings=SETTINGS, mail=MAIL)
        notices.send(db, START + 5 * H)
        assert sorted(hook.titles()[1:]) == ["[pbem n-1] a játszma véget ért", "[pbem n-1] the game is over"]
        assert len(hook.got) == 3
    # no password, no report in a notice; the URL's token in no log line, error, or archive
    sent = repr(hook.got)
    assert all(password not in sent for password in passwords.values())
    assert "s3cr3t-token-0042" not in caplog.text
    assert "s3cr3t-token-0042" not in archive.dump(archive.build_archive(db, "n-1", include_secrets=True))


def test_a_reminder_reaches_the_webhook_with_the_mail(db: Engine) -> None:
    passwords = new_game(db, "n-2")
    with webhook() as hook:
        name_target(db, "n-2", "blue", hook.url())
        send_orders(db, "n-2", "red", passwords["red"], START + H)
        tick(db, START + 13 * H, settings=SETTINGS, mail=MAIL)  # 11 hours left: the reminder
        tick(db, START + 14 * H, settings=SETTINGS, mail=MAIL)
        notices.send(db, START + 14 * H)
        assert hook.titles() == ["[pbem n-2] reminder: turn 1"]
        assert "due by Mar 3, 2026 09:00 UTC" in hook.got[0]["message"]


def _worker(url: str, step: str, now: datetime) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), str(WORKER.parents[1])])}
    done = subprocess.run([sys.executable, str(WORKER), url, step, now.isoformat()], env=env, check=False)
    return done.returncode


def test_a_notice_is_delivered_exactly_once_across_killed_processes(db: Engine) -> None:
    passwords = new_game(db, "n-1", rounds=1)
    with webhook() as hook:
        name_target(db, "n-1", "red", hook.url())
        name_target(db, "n-1", "blue", hook.url("blue"))
        for seat in ("red", "blue"):
            send_orders(db, "n-1", seat, passwords[seat], START + H)
        # killed between queueing (the turn's transaction) and sending: the next send step sends it once
        assert _worker(db.url.render_as_string(hide_password=False), "turn", START + 2 * H) == -signal.SIGKILL
        assert [status for _key, status in pushes(db)] == ["pending"] and hook.got == []
        assert len(notices.send(db, START + 2 * H).sent) == 1
        assert notices.send(db, START + 3 * H).sent == [] and len(hook.got) == 1
        [diver] = owes(db, "n-1")
        send_orders(db, "n-1", diver, passwords[diver], START + 3 * H)
        assert (
            _worker(db.url.render_as_string(hide_password=False), "turn", START + 4 * H) == -signal.SIGKILL
        )  # the end: one notice a seat
        assert [status for _key, status in pushes(db)] == ["sent", "pending", "pending"]
        # killed between handing the first of them over and marking it sent
        assert _worker(db.url.render_as_string(hide_password=False), "send", START + 4 * H) == -signal.SIGKILL
        assert len(hook.got) == 2
        assert [status for _key, status in pushes(db)] == ["sent", "sending", "pending"]
        # the next send steps: the one in flight is not sent again, the other goes once
        assert len(notices.send(db, START + 4 * H).sent) == 1 and len(hook.got) == 3
        later = notices.send(db, START + 5 * H)  # the dead sender's claim has run out
        assert later.sent == [] and len(later.unsure) == 1
        assert [status for _key, status in pushes(db)] == ["sent", "unsure", "sent"]
        assert sorted(hook.titles()[1:]) == ["[pbem n-1] the game is over"] * 2
        assert len(hook.got) == 3  # every seat told of every event once: 0 lost, 0 doubled


def test_a_refusing_target_is_tried_again_and_then_given_up_without_naming_it(db: Engine) -> None:
    passwords = new_game(db, "n-3")
    for seat in ("red", "blue"):  # nothing listens on port 9
        name_target(db, "n-3", seat, "json://127.0.0.1:9/closed?token=s3cr3t-token-0042")
    for seat in ("red", "blue"):
        send_orders(db, "n-3", seat, passwords[seat], START + H)
    tick(db, START + 2 * H, settings=SETTINGS, mail=MAIL)
    moment = START + 2 * H
    for _ in range(notices.MAX_ATTEMPTS):
        notices.send(db, moment)
        moment += timedelta(days=1)
    with Session(db) as session:
        row = session.exec(select(PushRow)).one()  # the diver's "your move"
    assert (row.status, row.attempts) == ("failed", notices.MAX_ATTEMPTS)
    assert row.last_error is not None and "s3cr3t" not in row.last_error and "127.0.0.1" not in row.last_error


def test_notify_by_mail_names_checks_and_drops_a_url_without_repeating_it(db: Engine) -> None:
    passwords = new_game(db, "n-4")
    url = "json://127.0.0.1:8099/hook?token=s3cr3t-token-0042"

    def ask(value: str, seat: str = "red") -> commands.Answer:
        text = f"game: n-4\nplayer: {seat}\npassword: {passwords[seat]}\nnotify: {value}\n"
        found = commands.detect("", text)
        assert found is not None and found.name == "notify"
        return commands.run(db, found, f"{seat}@example.org", now=START)

    named = ask(url)
    assert named.ok and "s3cr3t" not in named.text + named.subject
    assert "is told at that notice URL" in named.text
    again = ask(url)
    assert "had named that notice URL already" in again.text
    refused = ask("nope://somewhere/s3cr3t-token-0042")
    assert not refused.ok
    assert refused.errors == [
        "notify: a URL beginning with nope:// is not a notice target this host can send to (or a part of it "
        "is missing); see the `apprise` URLs, e.g. ntfys://ntfy.sh/my-topic"
    ]
    with Session(db) as session:
        assert session.exec(select(NoticeTargetRow.url)).all() == [url]
    dropped = ask("off")
    assert dropped.ok and "no more notices for red besides mail" in dropped.text
    with Session(db) as session:
        assert session.exec(select(NoticeTargetRow)).all() == []
    wrong = commands.run(
        db,
        commands.Command("notify", f"game: n-4\nplayer: red\npassword: wrong-pass-word-00\nnotify: {url}\n"),
        "red@example.org",
        now=START,
    )
    assert not wrong.ok and "do not match" in wrong.errors[0]


def test_a_url_apprise_cannot_read_is_refused_by_the_check() -> None:
    with pytest.raises(UserError, match="give one notice URL"):
        notices.check_url("not a url at all")
    assert notices.check_url("  ntfys://ntfy.sh/my-topic ") == "ntfys://ntfy.sh/my-topic"


def test_a_turn_resolved_by_pbem_process_queues_its_notices_too(db: Engine) -> None:
    passwords = new_game(db, "n-5")
    for seat in ("red", "blue"):
        name_target(db, "n-5", seat, f"json://127.0.0.1:9/{seat}")
        send_orders(db, "n-5", seat, passwords[seat], START + H)
    with pytest.raises(SystemExit) as done:
        main(["process", "n-5", "--db", db.url.render_as_string(hide_password=False)])
    assert done.value.code in (0, None)
    [diver] = owes(db, "n-5")
    assert [key for key, _status in pushes(db)] == [
        f"push:move:n-5:0:2:{diver}:{2 if diver == 'blue' else 1}"
    ]
