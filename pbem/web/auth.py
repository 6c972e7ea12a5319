"""Signing in: by the one-click link a mail carries (``/in/<token>``), or by game, seat and password; and
the dependencies every seat's route uses to know who asks.

Interface for the other routes (``pbem.web.orders``, ``pbem.web.api``):

- :func:`seat_access` (a FastAPI dependency of a route with path parameters ``game`` and ``seat``): the
  :class:`SeatAccess` of a browser signed in as that seat; else a redirect (303) to the sign-in page for a
  browser signed in as nobody, and 403 for one signed in as someone else. The same answer whether the game
  and seat exist or not.
- :func:`csrf_token` / :func:`check_csrf`: the token every form carries, checked on every POST.
- :func:`bearer_access` and :func:`api_token`: a per-seat bearer token (``Authorization: Bearer …``) for
  clients and bots, revoked like the links.

Privacy: nothing here says whether a game or seat exists. A wrong password is counted with the mail's
(:mod:`pbem.intake.guessing`) under the game and seat as typed, existing or not, and answered in the same
words after the same scrypt check.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from pbem.core import clock, i18n
from pbem.core.i18n import _
from pbem.intake import guessing, passwords, seatpass
from pbem.outbox.signin import read_token
from pbem.storage.models import GameMasterRow, GameRow, SeatRow
from pbem.web.seatpage import GameFacts, game_facts
from pbem.web.sessions import check_csrf, csrf_token, fresh, session_of, set_session
from pbem.web.words import error_page, reader_language, render

__all__ = [
    "SeatAccess",
    "api_token",
    "bearer_access",
    "check_csrf",
    "csrf_token",
    "master_access",
    "router",
    "seat_access",
]

router = APIRouter()

#: the name wrong game master passwords are counted under (no seat can have it: seat names are letters,
#: digits and dashes)
MASTER = "@gm"


@dataclass(frozen=True)
class SeatAccess:
    """A seat a request may act for: its game, its name, the language it reads, its address."""

    game_id: str
    seat: str
    language: str
    email: str


def engine_of(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def client_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _sign_in_first(request: Request) -> HTTPException:
    return HTTPException(status_code=303, headers={"Location": f"/sign-in?next={quote(request.url.path)}"})


def _access(game: GameFacts | None, seat: str, generation: int) -> SeatAccess | None:
    found = game.seat(seat) if game is not None else None
    if game is None or found is None or found.link_generation != generation:
        return None
    return SeatAccess(game.id, seat, found.language or game.language or i18n.DEFAULT_LANGUAGE, found.email)


def access_for(engine: Engine, game_id: str, seat: str, generation: int) -> SeatAccess | None:
    """The seat's access for a session or token of ``generation``, or ``None`` if it is revoked or the
    seat is gone."""
    with engine.connect() as conn:
        game = game_facts(conn, game_id)
    return _access(game, seat, generation)


def seat_access(request: Request) -> SeatAccess:
    """The seat of the route's ``{game}``/``{seat}`` if this browser signed in as it (see the module)."""
    game_id = str(request.path_params.get("game", ""))
    seat = str(request.path_params.get("seat", ""))
    session = session_of(request)
    if not session.signed_in:
        raise _sign_in_first(request)
    held = next((n for g, s, n in session.seats if g == game_id and s == seat), None)
    if held is None:
        raise HTTPException(status_code=403, detail="forbidden")
    with engine_of(request).connect() as conn:
        game = game_facts(conn, game_id)
    access = _access(game, seat, held)
    if access is None:  # revoked since (a reset, a replace): sign in again
        raise _sign_in_first(request)
    request.state.game_facts = game  # read once: the page goes on from it
    return access


def master_tag(password_hash: str) -> str:
    """What a session keeps of the game master's password: a new one ends the sessions of the old."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


def master_access(request: Request) -> str:
    """The game of the route's ``{game}`` if this browser signed in as its game master (else 303/403)."""
    game_id = str(request.path_params.get("game", ""))
    session = session_of(request)
    if not session.signed_in:
        raise _sign_in_first(request)
    tag = next((t for g, t in session.masters if g == game_id), None)
    if tag is None:
        raise HTTPException(status_code=403, detail="forbidden")
    with Session(engine_of(request)) as db:
        row = db.get(GameMasterRow, game_id)
    if row is None or master_tag(row.password_hash) != tag:
        raise _sign_in_first(request)
    return game_id


# ----------------------------------------------------------------------------------- bearer tokens

_API_SALT = "pbem-api-token"


def api_token(secret: str, access: SeatAccess, generation: int) -> str:
    """The seat's bearer token for the JSON API (revoked, like its links, by a reset or ``replace``)."""
    return str(URLSafeSerializer(secret, salt=_API_SALT).dumps([access.game_id, access.seat, generation]))


def bearer_access(request: Request) -> SeatAccess:
    """The seat an ``Authorization: Bearer`` token stands for, or 401 (one answer for every failure)."""
    scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    denied = HTTPException(status_code=401, detail="token", headers={"WWW-Authenticate": "Bearer"})
    if scheme.lower() != "bearer" or not token:
        raise denied
    try:
        game_id, seat, generation = URLSafeSerializer(
            request.app.state.settings.secret_key, salt=_API_SALT
        ).loads(token.strip())
    except (BadSignature, ValueError, TypeError):
        raise denied from None
    access = access_for(engine_of(request), str(game_id), str(seat), int(generation))
    if access is None:
        raise denied
    return access


# ----------------------------------------------------------------------------------- signing in


def _address_seats(engine: Engine, email: str) -> list[tuple[str, str, int]]:
    """Every seat registered to ``email`` (a link mailed there proves the address), in newest games first."""
    wanted = email.strip().lower()
    if not wanted:
        return []
    with Session(engine) as session:
        rows = session.exec(
            select(SeatRow.game_id, SeatRow.name, SeatRow.link_generation)
            .join(GameRow, col(GameRow.id) == col(SeatRow.game_id))
            .where(func.lower(func.trim(SeatRow.email)) == wanted)
            .order_by(col(GameRow.created_at).desc(), col(GameRow.id), col(SeatRow.position))
        ).all()
    return [(g, s, int(n)) for g, s, n in rows][:50]  # a cookie holds some 4 KB


def _next_path(wanted: str | None, default: str) -> str:
    """Where to go after signing in: a path of this site only (never another site's address)."""
    if wanted and wanted.startswith("/") and not wanted.startswith("//") and "\\" not in wanted:
        return wanted
    return default


def _seat_path(game_id: str, seat: str) -> str:
    return f"/g/{quote(game_id, safe='')}/{quote(seat, safe='')}"


@router.get("/in/{token}")
def sign_in_by_link(request: Request, token: str) -> Response:
    """The one-click link of a mail: a new session as that seat (and every seat of its address)."""
    engine = engine_of(request)
    claim = read_token(request.app.state.settings.secret_key, token, clock.utc())
    access = access_for(engine, claim.game_id, claim.seat, claim.generation) if claim else None
    if claim is None or access is None:
        return error_page(request, 400, "link")
    seats = _address_seats(engine, access.email)
    if not any(g == access.game_id and s == access.seat for g, s, _n in seats):
        seats = [(access.game_id, access.seat, claim.generation), *seats]
    set_session(request, fresh(tuple(seats), session_of(request).masters, access.email.strip().lower()))
    return RedirectResponse(_seat_path(access.game_id, access.seat), status_code=303)


@router.get("/sign-in")
def sign_in_form(request: Request, next: str | None = None) -> Response:
    return render(request, "signin", reader_language(request), next=_next_path(next, ""), failed=None)


def _wrong(request: Request, engine: Engine, game_id: str, seat: str, now: datetime) -> None:
    with Session(engine) as session:
        guessing.wrong(session, game_id, seat, f"web {client_of(request)}", now)
        session.commit()


@router.post("/sign-in")
def sign_in(
    request: Request,
    game: Annotated[str, Form(max_length=64)],
    seat: Annotated[str, Form(max_length=64)],
    password: Annotated[str, Form(max_length=200)],
    csrf: Annotated[str, Form(max_length=100)] = "",
    next: Annotated[str, Form(max_length=500)] = "",
) -> Response:
    """Game, seat and password: the seat's session, or one answer for every mistake."""
    check_csrf(request, csrf)
    engine, now = engine_of(request), clock.utc()
    game_id, name = game.strip(), seat.strip()
    with Session(engine) as session:
        row = session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == name)).first()
        matches = seatpass.check(session, row, password.strip())  # the same scrypt check for no seat
        session.commit()  # a pending password's first use makes it the seat's
        generation = row.link_generation if row is not None else 0
    if not matches or row is None:
        _wrong(request, engine, game_id, name, now)
        lang = reader_language(request)
        with i18n.language(lang):
            failed = _("Game {game}, seat {seat} and that password do not match.", game=game_id, seat=name)
        return render(request, "signin", lang, status=400, next=_next_path(next, ""), failed=failed)
    old = session_of(request)
    kept = tuple(s for s in old.seats if (s[0], s[1]) != (game_id, name))
    set_session(request, fresh(((game_id, name, generation), *kept), old.masters, old.email, old.lang))
    return RedirectResponse(_next_path(next, _seat_path(game_id, name)), status_code=303)


@router.post("/sign-in/gm")
def sign_in_master(
    request: Request,
    game: Annotated[str, Form(max_length=64)],
    password: Annotated[str, Form(max_length=200)],
    csrf: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """A game master's game and password: the game's commands page."""
    check_csrf(request, csrf)
    engine, now = engine_of(request), clock.utc()
    game_id = game.strip()
    with Session(engine) as session:
        row = session.get(GameMasterRow, game_id)
        matches = passwords.verify(password.strip(), row.password_hash if row else None)
    if not matches or row is None:
        _wrong(request, engine, game_id, MASTER, now)
        lang = reader_language(request)
        with i18n.language(lang):
            failed = _("Game {game} and that game master password do not match.", game=game_id)
        return render(request, "signin", lang, status=400, next="", failed=failed)
    old = session_of(request)
    masters = ((game_id, master_tag(row.password_hash)), *(m for m in old.masters if m[0] != game_id))
    set_session(request, fresh(old.seats, masters, old.email, old.lang))
    return RedirectResponse(f"/gm/{quote(game_id, safe='')}", status_code=303)


@router.post("/sign-out")
def sign_out(request: Request, csrf: Annotated[str, Form(max_length=100)] = "") -> Response:
    check_csrf(request, csrf)
    set_session(request, fresh(lang=session_of(request).lang))
    return RedirectResponse("/", status_code=303)
