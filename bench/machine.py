"""The machine the figures were measured on."""

from __future__ import annotations

import os
import platform
import sqlite3
import sys
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


def describe() -> list[str]:
    """The notes printed above the figures."""
    return [
        f"pbem bench, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"machine: {os.cpu_count()} cores ({cpu_model()}), {memory_gib():.1f} GiB memory, "
        f"{platform.system()} {platform.release()}",
        f"python {platform.python_version()} ({sys.implementation.name}), sqlite {sqlite3.sqlite_version}, "
        f"postgresql {postgres_version()}",
        f"{load()} at the start (other work on the machine slows every figure)",
    ]
