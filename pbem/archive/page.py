"""The archive page: one self-contained HTML file that replays a game turn by turn in a browser.

Every turn's report is rendered from the stored state of that turn through the game's own report
template (:func:`pbem.render.reports.context`, so the one per-player view feeds it), then the pages are cut
into lines, each distinct line kept once, and the whole packed with zlib: boards change little from
one turn to the next, so a 42-turn 4-player Reef Encounter game's 215 reports (13 MB) take about 70 KB.
The page unpacks them with the browser's own ``DecompressionStream``: nothing is fetched, the file
works from disk or as a mail attachment, offline.

A finished game's page shows every seat's report turn by turn (switchable per seat) and carries the
game's YAML archive as a download. A game still running gets only the public report of each turn
played so far and no archive: its seed and draws would tell the bag's future and every hidden holding.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import files
from pbem.core import i18n
from pbem.core.codec import unpack_json
from pbem.core.errors import UserError
from pbem.core.game import Event
from pbem.core.i18n import _
from pbem.render import reports
from pbem.render.environment import environment
from pbem.storage import presslog
from pbem.storage.history import game_of, game_row, origin_note, recorded_elsewhere, seat_rows
from pbem.storage.models import GameRow, TurnRow

#: the marker a page carries of the game as it was drawn, read back by :func:`refresh_pages`
MARK = "pbem-archive-of"


def _events(packed: bytes) -> list[Event]:
    return [Event(e["text"], e.get("to"), e.get("data") or {}) for e in unpack_json(packed)]


def _mark(row: GameRow) -> str:
    """Which state of the game a page shows. Not its state hash: on a running game's page that would let
    a reader test guesses of the hidden holdings against it (the secrets campaign caught it)."""
    return f"{row.epoch}:{row.turn}:{row.status}"


class _Lines:
    """Each distinct line of every page, once; a page is the list of its lines' numbers."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def encode(self, page: str) -> list[int]:
        return [self.index.setdefault(line, len(self.index)) for line in page.split("\n")]


def page_data(engine: Engine, game_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(what the page's template shows, what its script unpacks) for ``game_id``."""
    with Session(engine) as session:
        row = game_row(session, game_id)
        game = game_of(row)
        seats = [s.name for s in seat_rows(session, game_id)]
        turns = list(
            session.exec(
                select(TurnRow)
                .where(TurnRow.game_id == game_id, TurnRow.undone == False)  # noqa: E712 - SQL, not Python
                .order_by(TurnRow.number)  # type: ignore[arg-type]
            )
        )
        mark = _mark(row)
        finished = row.status == "finished"
        elsewhere = recorded_elsewhere(session, game_id)
        _origin, assumed = origin_note(session, game_id)
        # private press is hidden information until the game is over: a running game's page has none
        press = presslog.archived(session, game_id) if finished else []
    views: list[str | None] = [None, *seats] if finished else [None]
    lines = _Lines()
    pages: dict[str, list[list[int]]] = {v or "": [] for v in views}
    events: dict[str, list[list[str]]] = {v or "": [] for v in views}
    outcome = None
    note = _("Recorded elsewhere and imported.") if elsewhere else None
    if assumed:
        note = _("Recorded elsewhere and imported; what its record left unknown was assumed, not recorded.")
    for turn in turns:
        state = game.load_state(unpack_json(turn.state_z))
        happened = _events(turn.events_z)
        for seat in views:
            ctx = reports.context(
                game, game_id, state, turn.number, seat, happened, status_note=note, assumed=assumed
            )
            ctx["order_template"] = None  # a page to watch, not to play from
            pages[seat or ""].append(lines.encode(reports.render(game, "html", ctx)))
            events[seat or ""].append([e["text"] for e in ctx["events"]])
            outcome = ctx["outcome"]
    payload: dict[str, Any] = {"lines": list(lines.index), "pages": pages, "events": events}
    if finished:
        payload["archive"] = files.public_archive(engine, game_id)  # no one's mail address
    shown = {
        "id": game_id,
        "title": game.title,
        "seats": seats,
        "views": [v or "" for v in views],
        "turns": len(turns),
        "finished": finished,
        "elsewhere": elsewhere,
        "assumed": assumed,
        "outcome": outcome if finished else None,
        "mark": mark,
        "press": press,
    }
    return shown, payload


def pack_payload(payload: dict[str, Any]) -> str:
    """The page's data as base64 of zlib-packed JSON (``DecompressionStream("deflate")`` reads it)."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")


def build_page(engine: Engine, game_id: str) -> str:
    """The archive page of ``game_id`` as HTML text."""
    shown, payload = page_data(engine, game_id)
    template = environment().get_template("archive/page.html.j2")
    return template.render(
        page=shown, mark_name=MARK, data=pack_payload(payload), language=i18n.current_language()
    )


def write_page(engine: Engine, game_id: str, path: str | Path) -> int:
    """Write ``game_id``'s archive page to ``path``; returns its size in bytes."""
    text = build_page(engine, game_id)
    target = Path(path)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    return len(text.encode("utf-8"))


def _stands_for(path: Path) -> str | None:
    """The mark in the page at ``path`` (which game state it shows), or ``None``."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    start = head.find(f'<meta name="{MARK}" content="')
    if start < 0:
        return None
    start += len(MARK) + len('<meta name="" content="')
    return head[start : head.find('"', start)]


def refresh_pages(
    engine: Engine, folder: str | Path, only: list[str] | None = None, *, failed: list[str] | None = None
) -> int:
    """Write ``<id>.html`` in ``folder`` for every game whose page there is missing or shows an older
    state of it (what ``pbem tick`` does with ``[archive] dir``). Returns how many were written. A game
    whose page cannot be written does not stop the others: with ``failed``, it is noted there as
    ``"<id>: why"`` (else the error is raised)."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    with Session(engine) as session:
        rows = [(r.id, _mark(r)) for r in session.exec(select(GameRow).order_by(GameRow.id))]
    written = 0
    for game_id, mark in rows:
        if only and game_id not in only:
            continue
        path = target / f"{game_id}.html"
        if _stands_for(path) == mark:
            continue
        partial = path.with_suffix(".html.part")  # a web server never serves half a page
        try:
            write_page(engine, game_id, partial)
            partial.replace(path)
        except Exception as exc:  # one game's page (a bug, a full disk) must not hold back the others'
            if failed is None:
                raise
            if partial.is_file():
                partial.unlink()
            failed.append(f"{game_id}: {type(exc).__name__}: {exc}")
            continue
        written += 1
    return written
