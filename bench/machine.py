"""The machine the figures were measured on."""

from __future__ import annotations

import hashlib
import os
import platform
import sqlite3
import statistics
import sys
import time
from datetime import UTC, datetime


def memory_gib() -> float:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for row in info:
                if row.startswith("MemTotal:"):
                    return int(row.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return float("nan")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for row in info:
                if row.startswith("model name"):
                    return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def postgres_version() -> str:
    try:
        from bench.fleet import pg_admin, pg_version

        admin = pg_admin()
        try:
            return pg_version(admin)
        finally:
            admin.dispose()
    except Exception as exc:  # the figures that need it will say so in full
        return f"unavailable ({type(exc).__name__})"


def load() -> str:
    """The load average now: on a shared machine, what else competed with the figures."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f}"


def reference_ms() -> float:
    """CPU ms of a fixed piece of work (a pure-Python loop, then one scrypt at the seat passwords'
    cost), the median of three after one not counted (the first runs slower, cold): how fast the machine
    runs at the moment. On a shared VM that moves by a third or more minute to minute, whatever the load
    average says, and every figure moves with it; a figure is read against the reference beside it."""
    timings = []
    for _ in range(4):
        start = time.process_time()
        total = 0
        for i in range(200_000):
            total += i * i % 7
        hashlib.scrypt(b"tulip-frog-42", salt=bytes(16), n=2**11, r=8, p=1, dklen=32)
        timings.append(time.process_time() - start)
    return statistics.median(timings[1:]) * 1000


def speed() -> str:
    return f"reference task {reference_ms():.1f} ms of cpu"


def describe() -> list[str]:
    """The notes printed above the figures."""
    return [
        f"pbem bench, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"machine: {os.cpu_count()} cores ({cpu_model()}), {memory_gib():.1f} GiB memory, "
        f"{platform.system()} {platform.release()}",
        f"python {platform.python_version()} ({sys.implementation.name}), sqlite {sqlite3.sqlite_version}, "
        f"postgresql {postgres_version()}",
        f"{load()} at the start (other work on the machine slows every figure)",
        f"{speed()} at the start (bench.machine.reference_ms: the machine's speed of the moment)",
    ]
