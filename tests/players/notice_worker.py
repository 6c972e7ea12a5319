"""A process the notice tests kill: ``python -m players.notice_worker DB_URL STEP NOW``.

``turn``: resolve the ready turn (its "your move" notices queued in its transaction) and die by SIGKILL
before any send step. ``send``: send the notices due, and die by SIGKILL between handing the first one
to its target and marking it sent."""

from __future__ import annotations

import os
import signal
import sys
from datetime import datetime

from pbem.cron import policy
from pbem.outbox import notices
from pbem.play import turns
from pbem.storage.db import connect


def main() -> None:
    url, step, now = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3])
    engine = connect(url, create=False)
    if step == "turn":

        def after_turn(session, row, number, waiting):  # type: ignore[no-untyped-def]
            policy.clock_turn(session, row, number)
            notices.queue_turn(session, row, waiting, now)

        turns.process(engine, "n-1", now=now, after_turn=after_turn)
        os.kill(os.getpid(), signal.SIGKILL)
    notices.send(engine, now, after_delivery=lambda _id: os.kill(os.getpid(), signal.SIGKILL))


if __name__ == "__main__":
    main()
