"""A webhook on 127.0.0.1 for the notice tests: a small http.server that keeps every JSON body apprise's
``json://`` target posts to it, in a thread of the test's process."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Hook:
    def __init__(self, port: int, got: list[dict[str, Any]]) -> None:
        self.port, self.got = port, got

    def url(self, path: str = "hook", token: str = "s3cr3t-token-0042") -> str:
        """The notice URL of this hook; its query holds a token, as a real one's does."""
        return f"json://127.0.0.1:{self.port}/{path}?token={token}"

    def titles(self) -> list[str]:
        return [str(body["title"]) for body in self.got]


@contextmanager
def webhook() -> Iterator[Hook]:
    got: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            got.append(json.loads(self.rfile.read(size)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Hook(server.server_address[1], got)
    finally:
        server.shutdown()
        server.server_close()
