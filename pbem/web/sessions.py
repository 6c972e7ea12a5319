"""Web sessions in a signed cookie, and the CSRF token that goes with each.

The cookie holds the session itself (no table of sessions): a random session id, the seats and games the
browser signed in to (each seat with the generation of its links then, so a password reset or a
``replace`` ends the session too: :mod:`pbem.web.auth` checks it on every request) and a chosen language.
It is signed with the host's key (itsdangerous, with its time, so an old cookie expires), ``HttpOnly``,
``SameSite=Lax``, and ``Secure`` behind TLS. Signing in always starts a new session id (no fixation: a
cookie planted before sign-in is never the one signed in). The CSRF token of a form is an HMAC of the
session id, so it changes with the session and is worth nothing in another browser.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import HTTPException, Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "pbem_session"
_SALT = "pbem-session"


@dataclass(frozen=True)
class WebSession:
    """What a browser's cookie says. ``seats``: (game, seat, link generation) it signed in as;
    ``masters``: (game, tag of the game master's password) it signed in to as game master."""

    sid: str = ""
    seats: tuple[tuple[str, str, int], ...] = ()
    masters: tuple[tuple[str, str], ...] = ()
    email: str = ""
    lang: str | None = None
    changed: bool = field(default=False, compare=False)

    @property
    def signed_in(self) -> bool:
        return bool(self.seats or self.masters)

    def dumped(self) -> dict[str, Any]:
        return {
            "sid": self.sid,
            "seats": [list(s) for s in self.seats],
            "gm": [list(m) for m in self.masters],
            "email": self.email,
            "lang": self.lang,
        }


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=_SALT)


def loaded(secret: str, cookie: str | None, max_age: int) -> WebSession:
    """The session a cookie holds, or an empty one (no cookie, a forged or expired one)."""
    if not cookie:
        return WebSession()
    try:
        data = _serializer(secret).loads(cookie, max_age=max_age)
        return WebSession(
            sid=str(data["sid"]),
            seats=tuple((str(g), str(s), int(n)) for g, s, n in data.get("seats", [])),
            masters=tuple((str(g), str(t)) for g, t in data.get("gm", [])),
            email=str(data.get("email", "")),
            lang=data.get("lang") if isinstance(data.get("lang"), str) else None,
        )
    except (BadSignature, KeyError, TypeError, ValueError):
        return WebSession()


def session_of(request: Request) -> WebSession:
    """The request's session (read by the app's middleware from the cookie)."""
    found: WebSession = getattr(request.state, "session", WebSession())
    return found


def set_session(request: Request, session: WebSession) -> None:
    """Make ``session`` the request's; the middleware writes it into the response's cookie."""
    request.state.session = replace(session, changed=True)


def fresh(
    seats: tuple[tuple[str, str, int], ...] = (),
    masters: tuple[tuple[str, str], ...] = (),
    email: str = "",
    lang: str | None = None,
) -> WebSession:
    """A new session with a new id: what signing in (or out) makes, never the one the browser brought."""
    return WebSession(secrets.token_urlsafe(24), seats, masters, email, lang, changed=True)


def write_cookie(response: Response, secret: str, session: WebSession, *, secure: bool, max_age: int) -> None:
    response.set_cookie(
        COOKIE,
        _serializer(secret).dumps(session.dumped()),
        max_age=max_age,
        httponly=True,
        samesite="lax",
        secure=secure,
        path="/",
    )


def _secret_of(request: Request) -> str:
    secret: str = request.app.state.settings.secret_key
    return secret


def csrf_token(request: Request) -> str:
    """The CSRF token a form of this page carries (a session is begun if the browser has none)."""
    session = session_of(request)
    if not session.sid:
        session = replace(session, sid=secrets.token_urlsafe(24))
        set_session(request, session)
    return _token_for(_secret_of(request), session.sid)


def _token_for(secret: str, sid: str) -> str:
    return hmac.new(secret.encode(), b"csrf:" + sid.encode(), hashlib.sha256).hexdigest()[:40]


def check_csrf(request: Request, token: str | None) -> None:
    """Refuse (403) a posted form whose token is not this session's."""
    session = session_of(request)
    expected = _token_for(_secret_of(request), session.sid) if session.sid else ""
    if not expected or not token or not hmac.compare_digest(expected, str(token)):
        raise HTTPException(status_code=403, detail="csrf")
