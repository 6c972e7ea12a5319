"""The host's own pages: the front page, an address's games (``/me``), a seat's page (its report, what the
game waits for, earlier turns, press: read and send), a game master's commands, and the archive page of a
game, served live (the public view while it runs, everything once it is over)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session
from starlette.routing import NoMatchFound

from pbem.archive.page import build_page
from pbem.core import caches, clock, i18n
from pbem.core.errors import UserError
from pbem.core.i18n import _
from pbem.cron import admin
from pbem.cron.deadlines import parse_duration
from pbem.mail import press
from pbem.storage.models import GameRow
from pbem.web import seatpage
from pbem.web.auth import SeatAccess, engine_of, master_access, seat_access
from pbem.web.sessions import check_csrf, session_of, set_session
from pbem.web.words import reader_language, render

router = APIRouter()

#: the archive page's own policy (pbem.archive.page): its script unpacks the turns into frames
ARCHIVE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data: blob:; "
    "frame-src about: blob:; child-src about: blob:; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)


def _game(request: Request, game_id: str) -> GameRow:
    with Session(engine_of(request)) as session:
        row = session.get(GameRow, game_id)
    if row is None:
        raise HTTPException(status_code=404, detail="not-found")
    return row


def _has_orders_form(request: Request) -> bool:
    # by the route's name: FastAPI (0.165) wraps an included router's routes, so the app's own list
    # shows none of their paths
    try:
        request.app.url_path_for("orders_form", game="g", seat="s")
    except NoMatchFound:
        return False
    return True


@router.get("/")
def front(request: Request) -> Response:
    if session_of(request).signed_in:
        return RedirectResponse("/me", status_code=303)
    return render(request, "front", reader_language(request))


@router.get("/lang/{code}")
def choose_language(request: Request, code: str, next: str = "/") -> Response:
    """Keep a language for the pages that are no seat's (a seat's page is in the seat's)."""
    try:
        chosen = i18n.check_language(code)
    except i18n.UnknownLanguage:
        raise HTTPException(status_code=404, detail="not-found") from None
    set_session(request, replace(session_of(request), lang=chosen))
    target = next if next.startswith("/") and not next.startswith("//") else "/"
    return RedirectResponse(target, status_code=303)


@router.get("/me")
def my_games(request: Request) -> Response:
    """Every game this browser signed in to: the seats of one address, and games it is game master of."""
    session = session_of(request)
    if not session.signed_in:
        return RedirectResponse("/sign-in?next=/me", status_code=303)
    engine, lang = engine_of(request), reader_language(request)
    entries = []
    with engine.connect() as conn, i18n.language(lang):
        for game_id, seat, generation in session.seats:
            game = seatpage.game_facts(conn, game_id)
            found = game.seat(seat) if game else None
            if game is None or found is None or found.link_generation != generation:
                continue  # revoked since: not shown
            entries.append(
                {
                    "game": game.id,
                    "seat": seat,
                    "title": game.title,
                    "href": f"/g/{quote(game.id, safe='')}/{quote(seat, safe='')}",
                    "waits": seatpage.waiting(engine, conn, game, seat),
                }
            )
    masters = [g for g, _tag in session.masters]
    return render(request, "me", lang, entries=entries, masters=masters)


@router.get("/g/{game}/{seat}")
def seat_page(
    request: Request, access: Annotated[SeatAccess, Depends(seat_access)], turn: str | None = None
) -> Response:
    """The seat's page: its report of a turn, what the game waits for, press."""
    return _seat_response(request, access, turn)


def _seat_response(
    request: Request,
    access: SeatAccess,
    turn: str | None,
    problem: str | None = None,
    status: int = 200,
    press_text: str = "",
) -> Response:
    engine = engine_of(request)
    with engine.connect() as conn:
        game: seatpage.GameFacts | None = getattr(request.state, "game_facts", None)
        game = game or seatpage.game_facts(conn, access.game_id)
        if game is None:
            raise HTTPException(status_code=404, detail="not-found")
        try:
            number = seatpage.turn_asked(game, turn)
        except UserError:
            raise HTTPException(status_code=404, detail="not-found") from None
        shown = seatpage.stored_report(conn, game, access.seat, number)
        with i18n.language(access.language):
            waits = seatpage.waiting(engine, conn, game, access.seat)
            press_shown = seatpage.press_of(conn, game, access.seat)
    base = f"/g/{quote(access.game_id, safe='')}/{quote(access.seat, safe='')}"
    return render(
        request,
        "seat",
        access.language,
        access=access,
        game=game,
        title=game.title,
        turn=number,
        latest=game.turn,
        report=shown,
        waits=waits,
        press=press_shown,
        press_mode=game.press or press.DEFAULT_PRESS,
        others=[s.name for s in game.seats if s.name != access.seat],
        base=base,
        orders_href=base + "/orders" if _has_orders_form(request) and number == game.turn else None,
        said=request.query_params.get("said"),
        problem=problem,
        press_text=press_text,
        status=status,
    )


@router.post("/g/{game}/{seat}/press")
def send_press(
    request: Request,
    access: Annotated[SeatAccess, Depends(seat_access)],
    text: Annotated[str, Form(max_length=press.MAX_PRESS_CHARS * 2)] = "",
    to: Annotated[list[str] | None, Form()] = None,
    csrf: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """Press from the seat's page: the same rules and limits as by mail, the same mails to the readers."""
    check_csrf(request, csrf)
    engine = engine_of(request)
    base = f"/g/{quote(access.game_id, safe='')}/{quote(access.seat, safe='')}"
    wanted = to or []
    with i18n.language(access.language):
        try:
            checked = press.prepare(
                engine, access.game_id, access.seat, "all" if "all" in wanted else wanted, text
            )
        except UserError as exc:
            # the page again, with what is wrong above the press form and the text kept in it
            return _seat_response(request, access, None, str(exc), status=400, press_text=text)
        with Session(engine) as session:
            checked.write(session, f"web:{uuid.uuid4()}")
            session.commit()
        said = _("Your press went to: {seats}.", seats=", ".join(checked.recipients))
    return RedirectResponse(f"{base}?said={quote(said)}#press", status_code=303)


@router.get("/gm/{game}")
def master_page(request: Request, game_id: Annotated[str, Depends(master_access)]) -> Response:
    engine, lang = engine_of(request), reader_language(request)
    with engine.connect() as conn, i18n.language(lang):
        game = seatpage.game_facts(conn, game_id)
        if game is None:
            raise HTTPException(status_code=404, detail="not-found")
        waits = seatpage.waiting(engine, conn, game, "")  # whom it waits for, as any seat may know it
    return render(
        request, "gm", lang, game=game, title=game.title, waits=waits, said=request.query_params.get("said")
    )


@router.post("/gm/{game}/{action}")
def master_command(
    request: Request,
    action: str,
    game_id: Annotated[str, Depends(master_access)],
    by: Annotated[str, Form(max_length=40)] = "",
    csrf: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """pause, resume, extend: what the game master's mail commands do (pbem.cron.admin), from a form."""
    check_csrf(request, csrf)
    engine, now = engine_of(request), clock.utc()
    lang = reader_language(request)
    with i18n.language(lang):
        try:
            if action == "pause":
                said = admin.pause(engine, game_id, now, ref="web")
            elif action == "resume":
                said = admin.resume(engine, game_id, now, ref="web")
            elif action == "extend":
                said = admin.extend(engine, game_id, parse_duration(by), now, ref="web")
            else:
                raise HTTPException(status_code=404, detail="not-found")
        except UserError as exc:
            said = str(exc)
    return RedirectResponse(f"/gm/{quote(game_id, safe='')}?said={quote(said)}", status_code=303)


@router.get("/archive/{game}")
def archive(request: Request, game: str) -> Response:
    """The game's archive page, live: the public view while it runs, every seat's once it is over."""
    row = _game(request, game)
    lang = reader_language(request)

    def make() -> str:
        with i18n.language(lang):
            return build_page(engine_of(request), row.id)

    key = (row.id, row.epoch, row.turn, row.status, lang)
    page = caches.remembered("web-archive-pages", 32, key, make)
    return HTMLResponse(page, headers={"Content-Security-Policy": ARCHIVE_CSP})
