"""Many games with a turn due, built fast, and the real ``pbem tick`` run over them in processes of its own.

A fleet is built from a few real games (created and given their turn-1 orders through the host's own
services, their turn-0 report mail queued and marked sent and their cron clock set, as an earlier tick
would have left them), then
cloned row by row under new ids: every clone is a real game in the state those services left it, so the
tick has real work in each (read the game, resolve the turn, store it, render every report, queue and
deliver the report mail).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, select, text, update

from bench.play import cheap_passwords, new_game, order_files
from pbem.cron.policy import sync_clock
from pbem.outbox import enqueue_reports
from pbem.outbox.settings import MailSettings
from pbem.play.orders import submit
from pbem.storage.cron_models import ClockRow
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import GameRow, OutboxRow, ReportRow, SeatRow, SubmissionRow, TurnRow

GAME = "reef-encounter"
FROM = "host@example.org"
SUMMARY = re.compile(
    r"tick: games seen (\d+), turns resolved (\d+), mails sent (\d+), reminders (\d+), errors (\d+)"
)
#: the tables holding a game's rows, and the column naming the game
CLONED = [
    (GameRow, "id"),
    (SeatRow, "game_id"),
    (TurnRow, "game_id"),
    (ReportRow, "game_id"),
    (SubmissionRow, "game_id"),
    (OutboxRow, "game_id"),
    (ClockRow, "game_id"),
]
CHUNK = 2000
#: the command cron runs, from this interpreter's environment
PBEM = str(Path(sys.executable).with_name("pbem"))


def game_ids(count: int) -> list[str]:
    return [f"g{n:05d}" for n in range(count)]


def build(url: str, count: int, templates: int, due: int | None = None) -> None:
    """``count`` Reef Encounter games (4 players) on ``url``; ``due`` of them (default all, spread
    evenly) with every order in for turn 1, the others waiting for their players' orders."""
    engine = connect(url)
    upgrade(engine)
    ids = game_ids(count)
    originals = ids[: min(templates, count)]
    with cheap_passwords():
        for seed, game_id in enumerate(originals, start=1):
            issued = new_game(engine, GAME, game_id, seed)
            for order_file in order_files(engine, game_id, issued):
                receipt = submit(engine, order_file)
                if not receipt.accepted:
                    raise RuntimeError(f"{game_id}: bot orders rejected: {receipt.errors}")
    now = datetime.now(UTC)
    enqueue_reports(engine, now, settings=MailSettings(from_addr=FROM))
    with engine.begin() as conn:  # the turn-0 mail went out with an earlier tick
        conn.execute(update(OutboxRow).values(status="sent", sent_at=now, attempts=1))
    for game_id in originals:  # and that tick set each game's clock
        sync_clock(engine, game_id, now)
    clones = ids[len(originals) :]
    due_clones = len(clones) if due is None else min(len(clones), max(0, due - len(originals)))
    chosen = {clones[i * len(clones) // due_clones] for i in range(due_clones)} if due_clones else set()
    waiting = set(clones) - chosen
    _clone(engine, originals, clones, waiting)
    engine.dispose()


def _clone(engine: Engine, originals: list[str], clones: list[str], waiting: set[str]) -> None:
    for model, key in CLONED:
        table = model.__table__  # type: ignore[attr-defined]
        with engine.connect() as conn:
            rows = conn.execute(select(table).where(table.c[key].in_(originals))).mappings().all()
        by_game: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            data = dict(row)
            if key != "id":
                data.pop("id", None)
            by_game.setdefault(data[key], []).append(data)
        batch: list[dict[str, Any]] = []
        with engine.begin() as conn:
            for n, clone in enumerate(clones):
                if model is SubmissionRow and clone in waiting:
                    continue  # its players have not sent their orders yet
                source = originals[n % len(originals)]
                for data in by_game.get(source, []):
                    copy = {**data, key: clone}
                    if model is OutboxRow:
                        copy["dedupe_key"] = data["dedupe_key"].replace(f":{source}:", f":{clone}:", 1)
                    batch.append(copy)
                if len(batch) >= CHUNK:
                    conn.execute(table.insert(), batch)
                    batch = []
            if batch:
                conn.execute(table.insert(), batch)


@dataclass(frozen=True)
class TickRun:
    seconds: float  # from the first tick's start to the last one's end
    turns: int  # turns resolved, all processes together
    errors: int
    peak_mb: float  # the largest max RSS of the tick processes
    cpu_seconds: float  # user + system time of the tick processes together


def tick(url: str, folder: Path, processes: int = 1, jobs: int | None = None) -> TickRun:
    """``processes`` real ``pbem tick`` commands at once on ``url`` (mail delivered into a Maildir), each
    with ``--jobs jobs`` (``None``: the command's default, a process per core). The CPU time counts the
    helpers too (``wait4`` adds the children a process waited for)."""
    env = {**os.environ, "PBEM_OUTBOX": str(folder / "outbox"), "PBEM_MAIL_FROM": FROM}
    env.pop("PBEM_CONFIG", None)
    now = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    runs = []
    start = time.perf_counter()
    for n in range(processes):
        out = open(folder / f"tick-{n}.out", "w+")  # noqa: SIM115 - read back after the process ends
        command = [PBEM, "tick", "--db", url, "--now", now, "--host", f"bench{n}", "--quiet"]
        command += [] if jobs is None else ["--jobs", str(jobs)]
        runs.append(
            (subprocess.Popen(command, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT), out)
        )
    turns = errors = 0
    peak_kb = 0
    cpu = 0.0
    for proc, out in runs:
        status, usage, high = _wait(proc.pid)
        proc.returncode = os.waitstatus_to_exitcode(status)
        peak_kb = max(peak_kb, high)
        cpu += usage.ru_utime + usage.ru_stime
        out.seek(0)
        output = out.read()
        out.close()
        found = SUMMARY.search(output)
        if found is None:
            raise RuntimeError(f"pbem tick printed no summary (exit {proc.returncode}):\n{output[-3000:]}")
        turns += int(found.group(2))
        errors += int(found.group(5))
    return TickRun(time.perf_counter() - start, turns, errors, peak_kb / 1024, cpu)


def _wait(pid: int) -> tuple[int, Any, int]:
    """Wait for ``pid``: its exit status, its resource usage, and its own peak RSS in kilobytes.

    The peak is read from ``/proc/PID/status`` (``VmHWM``) while it runs: the ``ru_maxrss`` that
    ``wait4`` gives keeps the high-water mark of the process it was forked from (Linux carries it
    across ``execve``), which here is the bench, grown by building the databases.
    """
    high = 0
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage, high
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as info:
                for row in info:
                    if row.startswith("VmHWM:"):
                        high = max(high, int(row.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.02)


# ------------------------------------------------------------------------------------------ PostgreSQL

PG_ADMIN = "postgresql+psycopg://postgres@/postgres?host=/var/run/postgresql"
ROOT = Path(__file__).resolve().parents[1]


def pg_admin_url() -> str:
    return os.environ.get("PBEM_BENCH_PG") or os.environ.get("PBEM_TEST_PG") or PG_ADMIN


def pg_admin() -> Engine:
    """An autocommit connection to the server, started by ``scripts/postgres.sh`` if it does not answer."""
    engine = create_engine(pg_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    except Exception:
        subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh")], check=True, capture_output=True)
    return engine


def pg_version(admin: Engine) -> str:
    with admin.connect() as conn:
        return str(conn.execute(text("show server_version")).scalar())


def pg_create(admin: Engine, name: str, template: str | None = None) -> str:
    """A fresh database ``name`` (a copy of ``template`` if given); its URL."""
    from sqlalchemy import make_url

    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
    return make_url(pg_admin_url()).set(database=name).render_as_string(hide_password=False)


def pg_drop(admin: Engine, *names: str) -> None:
    with admin.connect() as conn:
        for name in names:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
