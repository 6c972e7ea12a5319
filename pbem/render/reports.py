"""Reports: what each seat (and the public) is shown after every turn, in plain text and HTML.

Every context is built from ``Game.view(state, seat)`` alone, the one place a game strips secrets, and
from the events visible to that seat. Reports are rendered once, in the transaction that records the
turn, and stored; reading a report later never re-renders it.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import clock, i18n, zones
from pbem.core.codec import pack_text_fast, unpack, unpack_json
from pbem.core.dice import report_data
from pbem.core.errors import UserError
from pbem.core.game import Event, Game
from pbem.intake.away import away_notes
from pbem.intake.envelope import order_template
from pbem.render import tables
from pbem.render.tables import TableAt, render, table_at_text
from pbem.storage.catching_up import bot_seats, catching_up
from pbem.storage.history import game_of, game_row, load_event, origin_note, seat_rows, store_reports
from pbem.storage.models import GameRow, ReportRow, SeatRow, TurnRow

FORMATS = {"txt": "txt", "text": "txt", "html": "html"}


def template_for(game: Game, state: Any, game_id: str, seat: str, turn: int) -> str | None:
    """The order file ``seat`` must send for turn ``turn``, or ``None`` when nothing is asked of it."""
    decision = game.pending(state).get(seat)
    if decision is None:
        return None
    decision = replace(decision, prompt=i18n._(decision.prompt))  # in the reader's language
    return order_template(
        title=game.title,
        game_id=game_id,
        seat=seat,
        turn=turn,
        decision=decision,
        orders_text=game.template(state, seat),
        game_name=game.name,
    )


def context(
    game: Game,
    game_id: str,
    state: Any,
    turn: int,
    seat: str | None,
    events: Sequence[Event],
    *,
    deadline: str | datetime | None = None,
    status_note: str | None = None,
    order_text: str | None = None,
    dice: dict[str, Any] | None = None,
    away: Sequence[dict[str, str]] = (),
    said: dict[tuple[str, int], str] | None = None,
    assumed: bool = False,
    caught_up: Sequence[tuple[int, Sequence[Event]]] = (),
) -> dict[str, Any]:
    """The report context documented in :mod:`pbem.render.environment`, for the state after turn ``turn``, in
    the current language (:func:`pbem.core.i18n.language`): events and a ``deadline`` given as a moment are
    put in its words. ``order_text`` replaces the template of what to send next (a preview shows the
    checked orders). ``dice``: :func:`pbem.core.dice.report_data`; ``away``: ``{seat, day}`` of the seats
    away (each reader sees the others'). ``said``: the words of ``events`` by (language, index), kept
    for the next reader of the turn (an event's words depend on nothing else). ``assumed``: some of what
    the view shows was assumed, not recorded (a record's unknowns), which what reveals it says.
    ``caught_up``: (turn, events) of the turns since the seat's own last orders, when it missed some
    (:mod:`pbem.storage.catching_up`): the report shows what the seat may see of each."""
    view = game.view(state, seat)
    if assumed and isinstance(view, dict):  # the table sees only the view: what reveals says "assumed"
        view = {**view, "assumed": True}
    decision = game.pending(state).get(seat) if seat else None
    if decision is not None and order_text is None:
        order_text = template_for(game, state, game_id, seat or "", turn + 1)
    if decision is not None:  # the game's words, in the reader's language (marked N_/T_ by the game)
        decision = replace(decision, prompt=i18n._(decision.prompt))
    result = game.outcome(state)
    outcome = None
    if result is not None:
        outcome = {
            "reason": i18n._(result.reason),
            "scores": dict(result.scores),
            "places": dict(result.places),
            "ranking": result.ranking(),
            "tie_breaks": [i18n._(t) for t in result.tie_breaks],
        }
    colours = view.get("colours") if isinstance(view, dict) else None
    return {
        "game": {"id": game_id, "title": game.title, "type": game.name, "turn": turn},
        "seat": seat,
        "colour": colours.get(seat) if seat and isinstance(colours, dict) else None,
        "view": view,
        "events": _shown(events, seat, turn, {} if said is None else said),
        "caught_up": [shown for number, earlier in caught_up for shown in _shown(earlier, seat, number, {})],
        "decision": decision,
        "order_template": order_text if decision is not None else None,
        "deadline": i18n.format_deadline(deadline) if isinstance(deadline, datetime) else deadline,
        "language": i18n.current_language(),
        "status_note": status_note,
        "assumed": assumed,
        "outcome": outcome,
        "dice": dice,
        "away": [{"seat": a["seat"], "until": zones.show_day(a["day"])} for a in away if a["seat"] != seat],
    }


def _shown(
    events: Sequence[Event], seat: str | None, turn: int, said: dict[tuple[str, int], str]
) -> list[dict[str, Any]]:
    """The events ``seat`` may see, in the current language; ``said`` keeps each one's words."""
    language = i18n.current_language()
    shown = []
    for n, event in enumerate(events):
        if event.visible_to(seat):
            words = said.get((language, n))
            if words is None:
                words = said[(language, n)] = event.words()
            shown.append({"turn": turn, "text": words})
    return shown


def render_pair(game: Game, ctx: dict[str, Any]) -> tuple[str, str]:
    """(plain text, HTML) of one report; its table is rendered from the view's table inputs only, once
    for every reader whose inputs are equal (:mod:`pbem.render.tables`)."""
    return tables.render_pair(game, ctx)


def render_located(game: Game, ctx: dict[str, Any]) -> tuple[str, str, TableAt | None]:
    """:func:`render_pair`, and where the page holds its table (:func:`pbem.render.tables.render_located`)."""
    return tables.render_located(game, ctx)


class Rendered(NamedTuple):
    """A reader's report as :func:`render_reports` renders it (``seat`` ``""``: the public one)."""

    seat: str
    text: str
    page: str
    #: where ``page`` holds the turn's shared table (``None``: not known), stored for the mail
    table_at: TableAt | None = None


def render_reports(
    game: Game,
    game_id: str,
    seats: Sequence[str],
    state: Any,
    turn: int,
    events: Sequence[Event],
    deadline: str | datetime | None,
    status_note: str | None = None,
    *,
    languages: Mapping[str, str | None] | None = None,
    public_language: str | None = None,
    dice: dict[str, Any] | None = None,
    away: Sequence[dict[str, Any]] = (),
    zones_for: Mapping[str, str] | None = None,
    assumed: bool = False,
    caught_up: Mapping[str, Sequence[tuple[int, Sequence[Event]]]] | None = None,
) -> list[Rendered]:
    """(seat, plain text, HTML, where the HTML holds its table: :class:`Rendered`) of every seat's
    report and the public one (seat ``""``), after ``turn``, each in its reader's language:
    ``languages[seat]``, else ``public_language`` (the game's, which the public report is in), and a
    ``deadline`` given as a moment in its reader's time zone, ``zones_for[seat]`` (``""``: the public
    report's). Pure: the turn driver renders before it
    takes the game's lock. Each table is rendered once for all who see the same one in the same
    language (:mod:`pbem.render.tables`)."""
    said: dict[tuple[str, int], str] = {}  # the events' words in each language, for every reader
    rendered = []
    for seat in [*seats, None]:
        with i18n.language((languages or {}).get(seat or "") or public_language):
            note = i18n._(status_note) if status_note else None
            shown = deadline
            if isinstance(deadline, datetime) and zones_for is not None:
                shown = zones.show(deadline, zones_for.get(seat or ""))
            ctx = context(
                game,
                game_id,
                state,
                turn,
                seat,
                events,
                deadline=shown,
                status_note=note,
                dice=dice,
                away=away,
                said=said,
                assumed=assumed,
                caught_up=(caught_up or {}).get(seat or "", ()),
            )
            text, page, table_at = render_located(game, ctx)
        rendered.append(Rendered(seat or "", text, page, table_at))
    return rendered


def content_digest(text: str, page: str) -> str:
    """The SHA-256 a stored report keeps of itself, which ``pbem replay --verify`` checks."""
    return _digest(text.encode("utf-8"), page.encode("utf-8"))


def _digest(text: bytes, page: bytes) -> str:
    # text, NUL, page fed one after the other: the digest of their join, without copying a 65 KB page
    digest = hashlib.sha256(text)
    digest.update(b"\0")
    digest.update(page)
    return digest.hexdigest()


def report_rows(
    game_id: str, epoch: int, turn: int, rendered: Sequence[Rendered | tuple[str, str, str]]
) -> list[dict[str, Any]]:
    """The ``report`` rows of :func:`render_reports`' reports, packed, for :func:`store_reports`: each
    text and page a zlib stream of its own (:func:`pbem.core.codec.pack_text_fast`), and where the page
    holds its table (``table_at``: :func:`table_at_text`; a report given as (seat, text, page): none)."""
    rows = []
    for seat, text, page, *located in rendered:
        raw_text, raw_page = text.encode("utf-8"), page.encode("utf-8")  # once, for packing and digest
        rows.append(
            {
                "game_id": game_id,
                "epoch": epoch,
                "turn": turn,
                "seat": seat,
                "text_z": pack_text_fast(text, raw_text),
                "html_z": pack_text_fast(page, raw_page),
                "content_sha256": _digest(raw_text, raw_page),
                "mail_queued": False,
                "table_at": table_at_text(located[0] if located else None),
            }
        )
    return rows


def shown_deadline(status: str, deadline_at: Any) -> datetime | None:
    """The deadline reports show (each in its reader's words): only while the game is active."""
    return clock.utc(deadline_at) if status == "active" and deadline_at is not None else None


def seat_languages(session: Session, game_id: str) -> dict[str, str | None]:
    """Each seat's own language (``None``: the game's)."""
    return {s.name: s.language for s in seat_rows(session, game_id)}


def reader_languages(session: Session, game_id: str) -> dict[str, str]:
    """The language each reader of ``game_id`` reads: every seat's (its own, else the game's), and
    the game's for the public report's readers (key ``""``). Empty for an unknown game."""
    row = session.get(GameRow, game_id)
    if row is None:
        return {}
    return languages_of(row, seat_rows(session, game_id))


def languages_of(game: GameRow, seats: Sequence[SeatRow]) -> dict[str, str]:
    """:func:`reader_languages` from the game's rows, when the caller has read them already."""
    return {seat.name: seat.language or game.language for seat in seats} | {"": game.language}


def reader_language(engine: Engine, game_id: str | None, seat: str | None) -> str:
    """The language to write to ``seat`` of ``game_id`` in (``None``: its observers); English when the
    game or seat is not known (a reply to a stranger)."""
    if not game_id:
        return i18n.DEFAULT_LANGUAGE
    with Session(engine) as session:
        return reader_languages(session, game_id).get(seat or "", i18n.DEFAULT_LANGUAGE)


def seat_zones(row: GameRow, seats: Sequence[SeatRow]) -> dict[str, str]:
    """Each seat's time zone, the one its deadlines are shown in (``""``: the public report's, the
    game's)."""
    return {seat.name: zones.seat_zone(row.timezone, seat.timezone) for seat in seats} | {"": row.timezone}


def write_reports(
    session: Session, game: Game, row: GameRow, state: Any, turn: int, events: Sequence[Event]
) -> None:
    """A :class:`ReportRow` for every seat and the public one (``seat=""``), for turn ``turn``, as the
    game row stands now."""
    languages = seat_languages(session, row.id)
    seat_list = seat_rows(session, row.id)
    note, assumed = origin_note(session, row.id)
    rendered = render_reports(
        game,
        row.id,
        list(languages),
        state,
        turn,
        events,
        shown_deadline(row.status, row.deadline_at),
        note,
        languages=languages,
        public_language=row.language,
        dice=report_dice(game, row, state),
        zones_for=seat_zones(row, seat_list),
        away=away_notes(row, seat_list),
        assumed=assumed,
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
        raise UserError(
            i18n._("unknown report format {format}; use text or html", format=repr(fmt))
        ) from None


def report(
    engine: Engine,
    game_id: str,
    seat: str | None,
    *,
    turn: int | None = None,
    fmt: str = "txt",
    lang: str | None = None,
    as_mailed: bool = False,
) -> str:
    """The stored report of ``seat`` (``None``: the public one) after ``turn`` (default: the latest).

    Once the game is over, the public report of any turn shows everything: each seat's own report of
    that turn, one after the other. With ``lang``, the report is rendered anew in that language from
    the turn's stored state and events (the stored one is in its reader's language); ``as_mailed``
    renders it with everything the turn's own report had (its dice line, notes, the reader's time zone,
    who is away), as a mail that asks for it again is sent.
    """
    kind = report_format(fmt)
    with Session(engine) as session:
        row = game_row(session, game_id)
        number = row.turn if turn is None else turn
        if not 0 <= number <= row.turn:
            raise UserError(
                i18n._(
                    "game {game} has turns 0 to {last}; there is no turn {turn}",
                    game=game_id,
                    last=row.turn,
                    turn=number,
                )
            )
        names = [s.name for s in seat_rows(session, game_id)]
        if seat is not None and seat not in names:
            raise UserError(
                i18n._(
                    "game {game} has no seat '{seat}'; its seats are {seats}",
                    game=game_id,
                    seat=seat,
                    seats=", ".join(names),
                )
            )
        wanted = [seat or ""]
        if seat is None and row.status == "finished" and turn is not None:
            wanted = ["", *names]
        if lang is not None:
            return _rendered_in(session, row, number, wanted, kind, lang, as_mailed)
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
        raise UserError(
            i18n._(
                "game {game} has no stored report of turn {turn} for {seats}",
                game=game_id,
                turn=number,
                seats=", ".join(missing),
            )
        )
    return combine([(s or None, found[s]) for s in wanted], kind)


def _rendered_in(
    session: Session,
    row: GameRow,
    number: int,
    wanted: list[str],
    kind: str,
    lang: str,
    as_mailed: bool = False,
) -> str:
    """The reports of ``wanted`` seats after turn ``number``, rendered anew in language ``lang``."""
    try:
        code = i18n.check_language(lang)
    except i18n.UnknownLanguage as exc:
        raise UserError(str(exc)) from None
    game = game_of(row)
    stored = session.exec(
        select(TurnRow)
        .where(TurnRow.game_id == row.id, TurnRow.number == number, TurnRow.epoch <= row.epoch)
        .where(TurnRow.undone == False)  # noqa: E712 - SQL, not Python
        .order_by(TurnRow.epoch.desc())  # type: ignore[attr-defined]
    ).first()
    if stored is None:
        raise UserError(i18n._("game {game} has no stored turn {turn}", game=row.id, turn=number))
    state = game.load_state(unpack_json(stored.state_z))
    events = [load_event(entry) for entry in unpack_json(stored.events_z)]
    latest = number == row.turn
    deadline = shown_deadline(row.status, row.deadline_at) if latest else None
    origin, assumed = origin_note(session, row.id)
    # as mailed: what the turn's own reports were rendered with (write_reports), so the report rendered
    # anew in another language is the same report (the dice line, each reader's time zone, who is away)
    seats = seat_rows(session, row.id)
    # the turns the seat missed before this one, as the turn's own reports caught it up on them
    by_bot = sorted(bot_seats(json.loads(stored.by_bot_json)))
    behind = catching_up(session.connection(), row.id, stored.epoch, number, seats, by_bot)
    zones_for = seat_zones(row, seats) if as_mailed else None
    dice = report_dice(game, row, state) if as_mailed else None
    away = away_notes(row, seats) if as_mailed and latest else []
    with i18n.language(code):
        rendered = []
        note = i18n._(origin) if origin else None
        for seat in wanted:
            shown: str | datetime | None = deadline
            if deadline is not None and zones_for is not None:
                shown = zones.show(deadline, zones_for.get(seat))
            ctx = context(
                game,
                row.id,
                state,
                number,
                seat or None,
                events,
                deadline=shown,
                status_note=note,
                assumed=assumed,
                dice=dice,
                away=away,
                caught_up=behind.get(seat, ()),
            )
            text, page = render_pair(game, ctx)
            rendered.append((seat or None, page if kind == "html" else text))
    return combine(rendered, kind)


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
    note = i18n._(
        "Preview: these orders for turn {turn} are legal (receipt {receipt}). "
        "Nothing is stored; the table shows the game as it stands now.",
        turn=row.turn + 1,
        receipt=receipt[:12],
    )
    ctx = context(game, row.id, state, row.turn, seat, [], status_note=note, order_text=order_text)
    return render(game, "txt", ctx)
