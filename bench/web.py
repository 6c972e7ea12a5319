"""Part ``web``: ``pbem serve --workers 2`` on loopback, a flood of seats' pages and a submit.

A Reef Encounter game of four bots is played some turns into a fresh SQLite file; the real ``pbem serve``
command serves it with two worker processes. Each of ``clients`` connections (HTTP/1.1, kept alive) is
signed in as one of the seats by its link and asks for that seat's page again and again for ``seconds``;
every answer must be a 200 holding the seat's report. The figures: pages answered a second, and the 99th
percentile of their times. The load is made here with plain sockets (a request written, the answer read
by its length), so the client takes little of the machine the server runs on.

``web.submit_p50_ms`` is a submit through the web (``POST`` of an order file to the JSON API, when the
app has one) beside ``pbem.play.orders.submit`` called directly; without the route the part says so.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pbem.cli.demo import play_bots
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.outbox.signin import LinkSettings, link
from pbem.play.orders import submit, template
from pbem.play.status import status
from pbem.storage.db import connect
from pbem.web.auth import SeatAccess, api_token

Figure = tuple[str, float, str]
PBEM = str(Path(sys.executable).with_name("pbem"))
SECRET = "bench-key-" + "b" * 40
SEATS = ("alice", "bob", "carol", "dave")
_LENGTH = re.compile(rb"content-length:\s*(\d+)", re.IGNORECASE)
_COOKIE = re.compile(r"pbem_session=([^;]+)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(url: str, port: int, folder: Path) -> subprocess.Popen[bytes]:
    # the bench's own flood is no attack: the limit per client is lifted for it
    env = {**os.environ, "PBEM_WEB_SECRET": SECRET, "PBEM_WEB_RATE": str(10**9)}
    log = open(folder / "serve.out", "wb")  # noqa: SIM115 - the server's output, kept for a failure
    command = [PBEM, "serve", "--db", url, "--port", str(port), "--workers", "2"]
    server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/sign-in", timeout=2):
                return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(
                    f"pbem serve did not start: {(folder / 'serve.out').read_text()[-2000:]}"
                ) from None
            time.sleep(0.2)


def _cpu_seconds(server: subprocess.Popen[bytes]) -> float:
    """CPU time (user + system) of the server and its worker processes so far, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        pid, parent = int(stat.parent.name), int(fields[1])
        if server.pid in (pid, parent):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _session(base: str, game_id: str, seat: str) -> str:
    """The session cookie of a browser that followed ``seat``'s mailed link."""
    made = link(LinkSettings(base, SECRET), game_id, seat, 0, datetime.now(UTC))
    assert made is not None

    class _Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *_args: object, **_kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(_Stay)
    try:
        opener.open(made, timeout=10)
    except urllib.error.HTTPError as answer:  # the 303 to the seat's page, with the cookie
        found = _COOKIE.search(answer.headers.get("set-cookie", ""))
        if found:
            return found.group(1)
    raise RuntimeError(f"signing in as {seat} by its link gave no session")


async def _client(port: int, request: bytes, until: float, times: list[float], marker: bytes) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    failures = 0
    try:
        while time.perf_counter() < until:
            start = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            found = _LENGTH.search(head)
            body = await reader.readexactly(int(found.group(1))) if found else b""
            if not head.startswith(b"HTTP/1.1 200") or marker not in body:
                failures += 1
            times.append(time.perf_counter() - start)
    finally:
        writer.close()
    return failures


def web_figures(folder: Path, clients: int, seconds: float, turns: int) -> Iterator[Figure | str]:
    url = f"sqlite:///{folder / 'web.sqlite'}"
    engine = connect(url)
    issued = play_bots(engine, "reef-encounter", "web-1", len(SEATS), 5, turns=turns)
    engine.dispose()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _serve(url, port, folder)
    try:
        requests = []
        for seat in SEATS:
            cookie = _session(base, "web-1", seat)
            request = (
                f"GET /g/web-1/{seat} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: pbem_session={cookie}\r\n\r\n"
            ).encode()
            requests.append((request, f"report for {seat}".encode()))
        asyncio.run(_flood(port, requests, 4, 1.0))  # warm: every seat's page read once per worker
        cpu = _cpu_seconds(server)
        times, failures = asyncio.run(_flood(port, requests, clients, seconds))
        cpu = _cpu_seconds(server) - cpu
    finally:
        server.terminate()
        server.wait(timeout=30)
    if failures:
        raise RuntimeError(f"{failures} of {len(times)} answers were not the seat's page")
    times.sort()
    yield (
        f"# web: pbem serve --workers 2 on loopback; {clients} clients for {seconds:.0f} s asked for "
        f"the pages of the {len(SEATS)} seats of a Reef Encounter game after {turns} turns: "
        f"{len(times)} pages"
    )
    yield "web.report_page_rps", len(times) / seconds, "pages/s"
    yield "web.report_page_p99_ms", times[int(0.99 * (len(times) - 1))] * 1000, "ms"
    yield "web.report_page_p50_ms", statistics.median(times) * 1000, "ms"
    # the server's own work a page, which other load on the machine changes less than the two above
    yield "web.report_page_cpu_ms", cpu / len(times) * 1000, "ms"
    yield from submit_figures(url, base, port, issued, folder)


#: the JSON API's submit (pbem.web.api, under its version's prefix), measured when the app serves it
SUBMIT_PATH = "/games/{game}/seats/{seat}/orders"
SUBMITS = 20


def submit_figures(
    url: str, base: str, port: int, issued: dict[str, str], folder: Path
) -> Iterator[Figure | str]:
    """The median of a submit through the web (the JSON API, an order file with its bearer token) and of
    ``pbem.play.orders.submit`` called directly on the same file, each the same orders ``SUBMITS`` times."""
    engine = connect(url)
    [entry] = status(engine, "web-1")
    seat = entry["awaited"][0]
    text = template(engine, "web-1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat], 1)
    direct = []
    for _ in range(SUBMITS):
        start = time.perf_counter()
        receipt = submit(engine, text)
        direct.append(time.perf_counter() - start)
        assert receipt.accepted, receipt.errors
    engine.dispose()
    server = _serve(url, port, folder)
    try:
        with urllib.request.urlopen(f"{base}/api/openapi.json", timeout=10) as answer:
            served = json.load(answer)["paths"]
        found = [p for p, methods in served.items() if p.endswith(SUBMIT_PATH) and "post" in methods]
        if not found:
            yield (
                "# web: web.submit_p50_ms not measured: this app has no submit route "
                f"(/api/…{SUBMIT_PATH}, the JSON API of pbem.web.api)"
            )
            return
        token = api_token(SECRET, SeatAccess("web-1", seat, "en", ""), 0)
        body = json.dumps({"text": text}).encode()
        path = found[0].format(game="web-1", seat=seat)
        through = []
        for _ in range(SUBMITS):
            request = urllib.request.Request(
                base + path,
                data=body,
                method="POST",
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )
            start = time.perf_counter()
            with urllib.request.urlopen(request, timeout=30) as answer:
                answer.read()
            through.append(time.perf_counter() - start)
    finally:
        server.terminate()
        server.wait(timeout=30)
    yield f"# web: {SUBMITS} submits of {seat}'s orders each way, the median"
    yield "web.submit_p50_ms", statistics.median(through) * 1000, "ms"
    yield "web.submit_direct_p50_ms", statistics.median(direct) * 1000, "ms"


async def _flood(
    port: int, requests: list[tuple[bytes, bytes]], clients: int, seconds: float
) -> tuple[list[float], int]:
    times: list[float] = []
    until = time.perf_counter() + seconds
    failures = await asyncio.gather(
        *(
            _client(port, requests[n % len(requests)][0], until, times, requests[n % len(requests)][1])
            for n in range(clients)
        )
    )
    return times, sum(failures)
