"""``pbem tick --jobs N``: helper processes share the games, hand back their counts, and die with
their tick."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
import weakref
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.host import jobs
from pbem.host.tick import TickSettings, tick
from pbem.intake import passwords
from pbem.outbox import enqueue_reports
from pbem.outbox.settings import MailSettings
from pbem.storage.models import TurnRow
from tests.cron.conftest import START, new_game, send_orders

ROOT = Path(__file__).resolve().parents[2]
MAIL = MailSettings(from_addr="host@example.org")


def due_games(engine: Engine, game_ids: list[str]) -> datetime:
    """Two-seat games with every order in for turn 1; returns when a tick finds them all due."""
    for game_id in game_ids:
        pw = new_game(engine, game_id)
        for seat in ("red", "blue"):
            send_orders(engine, game_id, seat, pw[seat], START + timedelta(hours=1))
    return START + timedelta(hours=2)


def test_helpers_share_the_games_and_the_tick_sums_their_counts(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passwords, "_N", 2)  # the setup's passwords: the tick checks none
    games = 30
    at = due_games(engine, [f"g{n:02d}" for n in range(games)])
    workers = tmp_path / "pids"
    workers.mkdir()

    def enqueue(game_id: str | None) -> int:
        if game_id is not None:  # which process queued (so advanced) which game
            (workers / game_id).write_text(str(os.getpid()))
        return enqueue_reports(engine, at, settings=MAIL, game_id=game_id)

    settings = TickSettings(host="t", remind_before=3600, outage_after=30 * 86400, batch=1, jobs=3)
    shown: list[str] = []  # what a progress bar is told: every game, whichever process did it
    summary = tick(engine, at, settings=settings, mail=MAIL, enqueue=enqueue, progress=shown.append)
    assert (summary.games_seen, summary.turns_resolved, summary.errors) == (games, games, 0)
    assert sorted(shown) == [f"g{n:02d}" for n in range(games)]
    assert summary.mails_queued == games * 2 * 2  # turns 0 and 1, each seat's report
    by = {path.name: path.read_text() for path in workers.iterdir()}
    assert len(by) == games and len(set(by.values())) > 1  # the helpers took their share
    with Session(engine) as session:
        assert len(session.exec(select(TurnRow).where(TurnRow.number == 1)).all()) == games
    again = tick(
        engine, at + timedelta(minutes=5), settings=replace(settings, jobs=2), mail=MAIL, enqueue=enqueue
    )
    assert (again.turns_resolved, again.mails_queued, again.errors) == (0, 0, 0)


def test_a_helper_done_before_the_tick_looks_keeps_its_counts() -> None:
    def work(index: int, report: jobs.Progress) -> dict[str, int]:
        for n in range(3):
            report(f"h{index}-{n}")
        return {"games_seen": 3, "errors": 0}

    shown: list[str] = []
    helpers = jobs.start(2, work, shown.append)
    for process, _reader in helpers.started:  # both done, their last word waiting in the pipe
        process.join(timeout=30)
    helpers.relay()  # reads the games and, behind them, each helper's counts
    assert sorted(shown) == [f"h{i}-{n}" for i in (1, 2) for n in range(3)]
    assert helpers.join() == [{"games_seen": 3, "errors": 0}] * 2


def test_jobs_default_to_the_cores_up_to_four() -> None:
    assert 1 <= jobs.auto_jobs() <= jobs.MAX_AUTO_JOBS
    assert jobs.auto_jobs() == min(len(os.sched_getaffinity(0)), jobs.MAX_AUTO_JOBS)


def test_a_helper_dies_with_its_tick() -> None:
    """SIGKILL to the tick takes its helpers too: a killed tick is wholly gone."""
    script = (
        "import sys, time\n"
        "from pbem.host import jobs\n"
        "helpers = jobs.start(2, lambda i, report: time.sleep(60) or {})\n"
        "print(' '.join(str(p.pid) for p, _ in helpers.started), flush=True)\n"
        "time.sleep(60)\n"
    )
    tick_process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert tick_process.stdout is not None
    pids = [int(pid) for pid in tick_process.stdout.readline().split()]
    assert len(pids) == 2 and all(_alive(pid) for pid in pids)
    tick_process.send_signal(signal.SIGKILL)
    tick_process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped by its new parent, counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_the_tick_sets_what_it_holds_aside_from_the_collector_in_itself_and_its_helpers(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passwords, "_N", 2)
    at = due_games(engine, [f"f{n}" for n in range(6)])
    seen = tmp_path / "frozen"
    seen.mkdir()

    def enqueue(game_id: str | None) -> int:
        # how many objects the collector leaves alone, as each process works on its games
        (seen / str(os.getpid())).write_text(str(gc.get_freeze_count()))
        return enqueue_reports(engine, at, settings=MAIL, game_id=game_id)

    assert gc.get_freeze_count() == 0
    settings = TickSettings(host="t", remind_before=3600, outage_after=30 * 86400, batch=1, jobs=2)
    summary = tick(engine, at, settings=settings, mail=MAIL, enqueue=enqueue)
    assert (summary.turns_resolved, summary.errors) == (6, 0)
    frozen = {path.name: int(path.read_text()) for path in seen.iterdir()}
    assert str(os.getpid()) in frozen and len(frozen) == 2  # the tick and its helper
    assert all(count > 10_000 for count in frozen.values())  # the imported host, at least
    assert gc.get_freeze_count() == 0  # given back: a long-lived caller frees them as before


def test_the_frozen_heap_keeps_nothing_that_was_garbage_already() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    before = Node()
    ref = weakref.ref(before)
    del before
    with jobs.frozen_heap():
        assert ref() is None  # collected before the freeze, not kept for the tick's life
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
