"""Run in a child process by test_limits: handle one mail given on stdin, print the outcome, so the
test can read this process's peak memory (VmHWM) and time alone."""

from __future__ import annotations

import resource
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.storage.db import connect

if __name__ == "__main__":
    # the machine is shared: a bomb that got through must fail here, not take the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    engine = connect(sys.argv[1])
    raw = sys.stdin.buffer.read()
    started = time.process_time()
    handled = inbound.handle(
        engine, raw, MailSettings(from_addr="host@pbem.example.org"), datetime(2026, 3, 2, tzinfo=UTC)
    )
    # VmHWM, not ru_maxrss: ru_maxrss survives exec, so it would report the forking parent's size
    status = Path("/proc/self/status").read_text()
    peak_mb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) / 1024
    print(handled.outcome, f"{time.process_time() - started:.2f}", f"{peak_mb:.0f}")
