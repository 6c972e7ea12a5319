"""Report mail with its pictures: one board to PNG, a report mail's size, and a turn through the
pipeline with every seat's report mail composed (its boards drawn, shared, cached)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from sqlmodel import Session, select

from bench.play import median, new_game, order_files, play_turn
from pbem import outbox
from pbem.core import caches
from pbem.core.codec import unpack
from pbem.outbox.settings import MailSettings
from pbem.render import pictures
from pbem.storage.db import connect
from pbem.storage.models import OutboxRow, ReportRow

GAME = "reef-encounter"
SETTINGS = MailSettings(from_addr="host@example.org")
_BOARD = re.compile(r"<svg[^>]*data-picture.*?</svg>", re.S)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)


def mail_figures(folder: Path, turns: int, repeats: int) -> tuple[float, float, float, float, float, int]:
    """(median ms of one board to PNG uncached, the same with its layers drawn before (a board whose
    pieces moved: what a turn pays), median bytes of a seat's report mail, median ms of a
    turn through the pipeline plus composing and queueing every seat's report mail, the median CPU ms
    of the same, turns measured) over the first ``turns`` turns of a 4-player Reef Encounter game."""
    engine = connect(f"sqlite:///{folder / 'mail.sqlite'}")
    issued = new_game(engine, GAME, "mail-1", seed=1)
    outbox.enqueue_reports(engine, settings=SETTINGS)  # the setup's reports, outside the timing
    turn_s: list[float] = []
    cpu_s: list[float] = []
    for _ in range(turns):
        files = order_files(engine, "mail-1", issued)
        if not files:
            break
        start, cpu = time.perf_counter(), time.process_time()
        play_turn(engine, "mail-1", files)
        outbox.enqueue_reports(engine, settings=SETTINGS)
        turn_s.append(time.perf_counter() - start)
        cpu_s.append(time.process_time() - cpu)
    with Session(engine) as session:
        sizes = [len(outbox.unpack_message(z)) for z in session.exec(select(OutboxRow.message_z))]
        page = unpack(session.exec(select(ReportRow.html_z).where(ReportRow.seat != "")).first() or b"")
    engine.dispose()
    board = _BOARD.search(page)
    if board is None:
        raise RuntimeError("the report draws no board picture")
    style = "\n".join(_STYLE.findall(page))
    png_s, layered_s = [], []
    for _ in range(repeats):
        caches.clear_all()  # a first drawing: the board's static layer and every piece drawn
        start = time.perf_counter()
        pictures._render(board.group(0), style, "board")
        png_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        pictures._render.__wrapped__(board.group(0), style, "board")  # its layers drawn before: a turn's
        layered_s.append(time.perf_counter() - start)
    return (
        median(png_s) * 1000,
        median(layered_s) * 1000,
        median([float(s) for s in sizes]),
        median(turn_s) * 1000,
        median(cpu_s) * 1000,
        len(turn_s),
    )
