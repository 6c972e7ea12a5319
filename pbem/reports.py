"""Reports: what each seat (and the public) is shown after every turn, in plain text and HTML.

Every context is built from ``Game.view(state, seat)`` alone, the one place a game strips secrets, and
from the events visible to that seat. Reports are rendered once, in the transaction that records the
turn, and stored; reading a report later never re-renders it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, insert
from sqlmodel import Session, select

from pbem import clock, zones
from pbem.away import away_notes
from pbem.codec import pack, unpack
from pbem.dice import report_data
from pbem.envelope import order_template
from pbem.errors import UserError
from pbem.game import Event, Game
from pbem.history import game_row, seat_rows
from pbem.models import GameRow, ReportRow, SeatRow
from pbem.render import render
from pbem.tables import TableCache

FORMATS = {"txt": "txt", "text": "txt", "html": "html"}
#: zlib level of stored reports: a 55 KB HTML report packs to 7.4 KB in 0.07 ms at level 3, to 6.4 KB
#: in 0.26 ms at level 6; a turn stores one per seat and the public one, two formats each
REPORT_LEVEL = 3


def template_for(game: Game, state: Any, game_id: str, seat: str, turn: int) -> str | None:
    """The order file ``seat`` must send for turn ``turn``, or ``None`` when nothing is asked of it."""
    decision = game.pending(state).get(seat)
    if decision is None:
        return None
    return order_template(
        title=game.title,
        game_id=game_id,
        seat=seat,
        turn=turn,
        decision=decision,
        orders_text=game.template(state, seat),
    )


def context(
    game: Game,
    game_id: str,
    state: Any,
    turn: int,
    seat: str | None,
    events: Sequence[Event],
    *,
    deadline: str | None = None,
    status_note: str | None = None,
    order_text: str | None = None,
    dice: dict[str, Any] | None = None,
    away: Sequence[dict[str, str]] = (),
) -> dict[str, Any]:
    """The report context documented in :mod:`pbem.render`, for the state after turn ``turn``.
    ``order_text`` replaces the template of what to send next (a preview shows the checked orders).
    ``dice``: :func:`pbem.dice.report_data`; ``away``: ``{seat, until}`` of the other seats away."""
    view = game.view(state, seat)
    decision = game.pending(state).get(seat) if seat else None
    if decision is not None and order_text is None:
        order_text = template_for(game, state, game_id, seat or "", turn + 1)
    result = game.outcome(state)
    outcome = None
    if result is not None:
        outcome = {
            "reason": result.reason,
            "scores": dict(result.scores),
            "places": dict(result.places),
            "ranking": result.ranking(),
            "tie_breaks": list(result.tie_breaks),
        }
    colours = view.get("colours") if isinstance(view, dict) else None
    return {
        "game": {"id": game_id, "title": game.title, "type": game.name, "turn": turn},
        "seat": seat,
        "colour": colours.get(seat) if seat and isinstance(colours, dict) else None,
        "view": view,
        "events": [{"turn": turn, "text": e.text} for e in events if e.visible_to(seat)],
        "decision": decision,
        "order_template": order_text if decision is not None else None,
        "deadline": deadline,
        "status_note": status_note,
        "outcome": outcome,
        "dice": dice,
        "away": [a for a in away if a["seat"] != seat],
    }


def render_pair(game: Game, ctx: dict[str, Any], *, tables: TableCache | None = None) -> tuple[str, str]:
    """(plain text, HTML) of one report; with ``tables``, each table is taken from there when an
    earlier report of the turn rendered the same one."""
    if tables is None:
        return render(game.name, "txt", ctx), render(game.name, "html", ctx)
    return tables.render(ctx, "txt"), tables.render(ctx, "html")


def render_reports(
    game: Game,
    game_id: str,
    seats: Sequence[str],
    state: Any,
    turn: int,
    events: Sequence[Event],
    deadline: str | None,
    *,
    dice: dict[str, Any] | None = None,
    away: Sequence[dict[str, str]] = (),
    deadline_for: dict[str, str | None] | None = None,
) -> list[tuple[str, str, str]]:
    """(seat, plain text, HTML) of every seat's report and the public one (seat ``""``), after
    ``turn``. ``deadline_for``: each seat's deadline as it reads it (in its zone; ``""``: the public
    report's), instead of ``deadline`` for all. Pure: the turn driver renders before it takes the
    game's lock. The HTML table is rendered once for all who see the same one (:mod:`pbem.tables`)."""
    tables = TableCache(game.name)
    rendered = []
    for seat in [*seats, None]:
        shown = deadline_for.get(seat or "", deadline) if deadline_for is not None else deadline
        ctx = context(game, game_id, state, turn, seat, events, deadline=shown, dice=dice, away=away)
        text, page = render_pair(game, ctx, tables=tables)
        rendered.append((seat or "", text, page))
    return rendered


def report_rows(
    game_id: str, epoch: int, turn: int, rendered: Sequence[tuple[str, str, str]]
) -> list[dict[str, Any]]:
    """The ``report`` rows of :func:`render_reports`' reports, packed, for :func:`store_reports`."""
    return [
        {
            "game_id": game_id,
            "epoch": epoch,
            "turn": turn,
            "seat": seat,
            "text_z": pack(text, REPORT_LEVEL),
            "html_z": pack(page, REPORT_LEVEL),
            "mail_queued": False,
        }
        for seat, text, page in rendered
    ]


def store_reports(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    # one statement for all of them: as ORM objects each would be an INSERT of its own (SQLite cannot
    # return a batch's ids in order, so the ORM inserts one by one to learn them, and none is needed)
    session.execute(insert(ReportRow), list(rows))


def shown_deadline(status: str, deadline_at: Any) -> str | None:
    """The deadline as reports show it: only while the game is active."""
    return clock.show(deadline_at) if status == "active" else None


def deadlines_by_seat(
    row: GameRow, seats: Sequence[SeatRow], status: str, deadline_at: Any
) -> dict[str, Any]:
    """Each seat's deadline in its own zone with UTC beside it (``""``: the public report, in the
    game's zone); ``None`` for all when the game is not active."""
    if status != "active" or deadline_at is None:
        return {seat.name: None for seat in seats} | {"": None}
    shown = {
        seat.name: zones.show(deadline_at, zones.seat_zone(row.timezone, seat.timezone)) for seat in seats
    }
    return shown | {"": zones.show(deadline_at, row.timezone)}


def write_reports(
    session: Session, game: Game, row: GameRow, state: Any, turn: int, events: Sequence[Event]
) -> None:
    """A :class:`ReportRow` for every seat and the public one (``seat=""``), for turn ``turn``, as the
    game row stands now."""
    seat_list = seat_rows(session, row.id)
    seats = [s.name for s in seat_list]
    rendered = render_reports(
        game,
        row.id,
        seats,
        state,
        turn,
        events,
        shown_deadline(row.status, row.deadline_at),
        dice=report_dice(game, row, state),
        deadline_for=deadlines_by_seat(row, seat_list, row.status, row.deadline_at),
        away=away_notes(row, seat_list),
    )
    store_reports(session, report_rows(row.id, row.epoch, turn, rendered))


def report_dice(game: Game, row: GameRow, state: Any) -> dict[str, Any] | None:
    """The dice line of a report after ``state``: the seed revealed once the game is over."""
    over = game.outcome(state) is not None or not game.pending(state)
    return report_data(row.dice, row.seed, over)


def report_format(fmt: str) -> str:
    """``txt`` or ``html`` for what a person may type (``text``, ``txt``, ``html``)."""
    try:
        return FORMATS[fmt]
    except KeyError:
        raise UserError(f"unknown report format {fmt!r}; use text or html") from None


def report(
    engine: Engine, game_id: str, seat: str | None, *, turn: int | None = None, fmt: str = "txt"
) -> str:
    """The stored report of ``seat`` (``None``: the public one) after ``turn`` (default: the latest).

    Once the game is over, the public report of any turn shows everything: each seat's own report of
    that turn, one after the other.
    """
    kind = report_format(fmt)
    with Session(engine) as session:
        row = game_row(session, game_id)
        number = row.turn if turn is None else turn
        if not 0 <= number <= row.turn:
            raise UserError(f"game {game_id} has turns 0 to {row.turn}; there is no turn {number}")
        names = [s.name for s in seat_rows(session, game_id)]
        if seat is not None and seat not in names:
            raise UserError(f"game {game_id} has no seat {seat!r}; its seats are {', '.join(names)}")
        wanted = [seat or ""]
        if seat is None and row.status == "finished" and turn is not None:
            wanted = ["", *names]
        # After a rollback, the turns before it keep the reports of the epoch they were played in; the
        # newest epoch's report of a turn is the one that stands.
        rows = session.exec(
            select(ReportRow)
            .where(
                ReportRow.game_id == game_id,
                ReportRow.epoch <= row.epoch,
                ReportRow.turn == number,
                ReportRow.seat.in_(wanted),  # type: ignore[attr-defined]
            )
            .order_by(ReportRow.epoch)  # type: ignore[arg-type]
        )
        found = {r.seat: unpack(r.html_z if kind == "html" else r.text_z) for r in rows}
    missing = [s or "public" for s in wanted if s not in found]
    if missing:
        raise UserError(f"game {game_id} has no stored report of turn {number} for {', '.join(missing)}")
    return combine([(s or None, found[s]) for s in wanted], kind)


def combine(reports: list[tuple[str | None, str]], kind: str) -> str:
    """Several reports as one: plain texts one after the other; HTML pages side by side in frames of
    one self-contained page."""
    if len(reports) == 1:
        return reports[0][1]
    if kind == "txt":
        rule = "\n" + "#" * 78 + "\n\n"
        return rule.join(text for _seat, text in reports)
    frames = "\n".join(
        f"<h2>{html.escape(seat or 'public')}</h2>\n"
        f'<iframe style="width:100%;height:70vh;border:1px solid #ccc" srcdoc="{html.escape(page)}"></iframe>'
        for seat, page in reports
    )
    head = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>reports</title></head>'
    return f"{head}\n<body>\n{frames}\n</body></html>\n"


def preview(game: Game, row: GameRow, state: Any, seat: str, order_text: str, receipt: str) -> str:
    """What ``pbem check`` shows for legal orders: the seat's table as it stands, with the orders as
    read where the template would be. Nothing is resolved: a trial resolution would let a player
    probe the bag or another seat's hidden holdings."""
    note = (
        f"Preview: these orders for turn {row.turn + 1} are legal (receipt {receipt[:12]}). "
        "Nothing is stored; the table shows the game as it stands now."
    )
    ctx = context(game, row.id, state, row.turn, seat, [], status_note=note, order_text=order_text)
    return render(game.name, "txt", ctx)
