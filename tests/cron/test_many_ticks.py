"""Four ``pbem tick`` processes at once over 200 games, and one tick with three helper processes
(``--jobs 3``), on SQLite and on PostgreSQL: every due turn is resolved exactly once and no mail is
queued or sent twice."""

from __future__ import annotations

import mailbox
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.intake import passwords
from pbem.storage.models import OutboxRow, TurnRow
from tests.cron.conftest import START, new_game, send_orders

ROOT = Path(__file__).resolve().parents[2]
GAMES = 200
SUMMARY = re.compile(
    r"tick: games seen (\d+), turns resolved (\d+), mails sent (\d+), reminders (\d+), errors (\d+)"
)


@pytest.mark.slow
@pytest.mark.parametrize(("processes", "jobs"), [(4, 1), (1, 3)], ids=["4-ticks", "1-tick-3-jobs"])
def test_ticks_at_once_resolve_every_due_turn_once(
    engine: Engine, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int, jobs: int
) -> None:
    # Setting up 200 games hashes and checks 400 passwords: at the real scrypt cost that alone takes
    # a minute. The ticks under test check no password, so the setup may use a cheap cost.
    monkeypatch.setattr(passwords, "_N", 2)
    for n in range(GAMES):
        game_id = f"g{n:03d}"
        # even games: every order is in; odd games: blue is silent and the bot policy's deadline passed
        pw = new_game(engine, game_id, nmr="bot")
        send_orders(engine, game_id, "red", pw["red"], START + timedelta(hours=1))
        if n % 2 == 0:
            send_orders(engine, game_id, "blue", pw["blue"], START + timedelta(hours=1))
    outbox = tmp_path / "sent"
    env = {
        **os.environ,
        "PBEM_OUTBOX": str(outbox),
        "PBEM_MAIL_FROM": "host@example.org",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    env.pop("PBEM_CONFIG", None)
    now = (START + timedelta(hours=25)).isoformat()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.cron.tick_worker", "--db", db_url, "--now", now,
             "--host", f"host{i}", "--outage", "30d", "--quiet", "--log", str(tmp_path / "tick.log"),
             "--jobs", str(jobs)],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(processes)
    ]  # fmt: skip
    outputs = [p.communicate(timeout=600) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, (out, err)
    totals = [tuple(map(int, m.groups())) for out, _ in outputs for m in [SUMMARY.search(out)] if m]
    assert len(totals) == processes
    seen, resolved, sent, _reminders, errors = (sum(column) for column in zip(*totals, strict=True))
    assert errors == 0
    assert resolved == GAMES  # every due turn, by exactly one of the processes
    assert seen == GAMES  # and each game visited once: a tick passes by games done at its moment
    with Session(engine) as session:
        per_game = session.exec(
            select(TurnRow.game_id, func.count()).where(TurnRow.number == 1).group_by(TurnRow.game_id)
        ).all()
        queued = session.exec(select(OutboxRow.dedupe_key, OutboxRow.status)).all()
    assert len(per_game) == GAMES and {count for _, count in per_game} == {1}
    # the reports of turns 0 and 1, one per seat per game: queued once each and all sent
    assert len(queued) == GAMES * 2 * 2 and {status for _, status in queued} == {"sent"}
    assert sent == len(queued)
    delivered = Counter(
        message_from_bytes(bytes(m))["Message-ID"] for m in mailbox.Maildir(outbox, create=False)
    )  # type: ignore[arg-type]
    assert len(delivered) == len(queued) and set(delivered.values()) == {1}  # no mail delivered twice
