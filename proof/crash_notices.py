"""The crash campaign's notices (issue 32): every seat of every game names a notice URL, a webhook this
process serves on 127.0.0.1 (apprise's json:// target); each tick that resolves a turn queues "your
move" for the seats the next turn waits for, and the tick's send step posts them. The webhook keeps
what it got, by (path, title): a notice's seat and game are the path, its turn the title. A killed run
must post each the same number of times as the uninterrupted run: once (0 lost, 0 doubled).

A notice a killed tick was handing over when it died is left ``unsure``, not sent again
(:mod:`pbem.outbox.notices`): it was posted (the webhook has it: nothing lost) or it was not (lost,
and counted so here)."""

from __future__ import annotations

import collections
import http.server
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from pbem.outbox import notices


class Webhook:
    """A json:// target on a free loopback port, counting what it is posted."""

    def __init__(self) -> None:
        self.got: collections.Counter[tuple[str, str]] = collections.Counter()
        lock = threading.Lock()
        got = self.got

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", "0"))
                body: dict[str, Any] = json.loads(self.rfile.read(size))
                with lock:
                    got[(self.path, str(body.get("title")))] += 1
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def taken(self) -> collections.Counter[tuple[str, str]]:
        """What was posted since the last call, and forget it (one run after another)."""
        found = collections.Counter(self.got)
        self.got.clear()
        return found

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def add_targets(engine: Engine, games: dict[str, dict[str, str]], port: int, now: Any) -> int:
    """A notice URL for every seat of every game; how many."""
    count = 0
    with Session(engine) as session:
        for game_id, seats in games.items():
            for seat in seats:
                url = notices.check_url(f"json://127.0.0.1:{port}/{game_id}/{seat}")
                count += notices.add_target(session, game_id, seat, url, now)
        session.commit()
    return count


def unsure(db: Path) -> int:
    """The notices a killed tick left ``unsure`` (it died while handing them over)."""
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM push WHERE status = 'unsure'").fetchone()[0])
    finally:
        conn.close()
