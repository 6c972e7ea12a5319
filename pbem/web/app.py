"""The web host: ``create_app(settings)`` builds the FastAPI application ``pbem serve`` runs on uvicorn.

FastAPI (on Starlette): typed routes and forms checked by the pydantic models pbem already uses, and the
OpenAPI document of the JSON API served by the app itself (``/api/openapi.json``). It reads the same
database as ``pbem tick`` (SQLite by default, PostgreSQL by URL); every route is a plain function run in
the server's thread pool, so a page waits on the database without holding the event loop.

What every response gets here: the session cookie written back when it changed
(:mod:`pbem.web.sessions`), a limit on requests per client and minute answered 429 in the reader's words
(:mod:`pbem.web.limits`), headers that keep the pages to this site (no external resource is ever
loaded, no page is framed, and no address of a page, a sign-in link's above all, is sent to another site
as a referrer), and error pages in the reader's language that show no internals.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pbem.core import i18n
from pbem.storage.db import connect
from pbem.web import auth, pages, routes
from pbem.web.api import api_bad_request
from pbem.web.limits import RateLimiter
from pbem.web.sessions import COOKIE, loaded, write_cookie
from pbem.web.settings import WebSettings, from_env
from pbem.web.words import REASONS, error_page, reader_language

log = logging.getLogger("pbem.web")

#: what a page may load: only this site's own (styles inline, pictures inline as SVG or data:)
CSP = (
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
_REASON_OF = {403: "forbidden", 404: "not-found", 405: "method", 429: "rate"}


#: threads a worker runs routes in at once: each route is short and mostly Python, so more threads only
#: take turns at the interpreter's lock (50 clients measured against 4 and against Starlette's 40 threads,
#: twice each under the same load: 309 and 376 pages/s against 249 and 154, the 99th percentile lower)
ROUTE_THREADS = 4


@asynccontextmanager
async def _lifespan(_app: FastAPI) -> AsyncIterator[None]:
    anyio.to_thread.current_default_thread_limiter().total_tokens = ROUTE_THREADS
    yield


def create_app(settings: WebSettings) -> FastAPI:
    """The application over ``settings.db_url``'s database (which must exist: ``pbem new`` makes it)."""
    settings = settings.checked()
    app = FastAPI(
        lifespan=_lifespan,
        title="pbem",
        summary="Board games played by email, and on the web",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    app.state.engine = connect(settings.db_url, create=False)
    app.state.limiter = RateLimiter()

    app.add_middleware(HostMiddleware, settings=settings, limiter=app.state.limiter)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if 300 <= exc.status_code < 400:
            return Response(status_code=exc.status_code, headers=exc.headers)
        if request.url.path.startswith("/api/"):
            from_api: Response = await _api_error(exc)
            return from_api
        reason = exc.detail if isinstance(exc.detail, str) and exc.detail in _REASONS else ""
        return error_page(request, exc.status_code, reason or _REASON_OF.get(exc.status_code, "not-found"))

    @app.exception_handler(RequestValidationError)
    async def _bad_form(request: Request, exc: RequestValidationError) -> Response:
        # the validator's own text names the library's fields and types: the reader gets words instead
        if request.url.path.startswith("/api/"):
            return api_bad_request(request, exc)
        return error_page(request, 400, "bad-form")

    @app.exception_handler(Exception)
    async def _broken(request: Request, exc: Exception) -> Response:
        # a bug: its traceback goes to the host's log, the reader gets words and no internals
        log.exception("web: %s %s failed", request.method, request.url.path)
        return error_page(request, 500, "broken")

    app.include_router(auth.router)
    app.include_router(pages.router)
    for router in routes.ROUTERS:
        app.include_router(router)
    return app


class HostMiddleware:
    """What every request and response goes through (plain ASGI: Starlette's ``BaseHTTPMiddleware`` cost
    a task and two streams a request): the session read from its cookie into the request's state and
    written back when it changed, the requests-a-minute limit, the headers that keep pages to this site."""

    def __init__(self, app: ASGIApp, settings: WebSettings, limiter: RateLimiter) -> None:
        self.app, self.settings, self.limiter = app, settings, limiter
        self.max_age = settings.session_days * 86400

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})
        request = Request(scope)
        settings = self.settings
        request.state.session = loaded(settings.secret_key, request.cookies.get(COOKIE), self.max_age)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                session = request.state.session
                if session.changed:
                    made = Response()
                    write_cookie(
                        made, settings.secret_key, session, secure=settings.behind_tls, max_age=self.max_age
                    )
                    headers.append("set-cookie", made.headers["set-cookie"])
                for name, value in _HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = CSP
            await send(message)

        client = auth.client_of(request)
        if not self.limiter.allow(client, "any", settings.requests_per_minute) or (
            scope["method"] == "POST"
            and scope["path"].startswith("/sign-in")
            and not self.limiter.allow(client, "sign-in", settings.sign_ins_per_minute)
        ):
            await _too_many(request)(scope, receive, sending)
            return
        await self.app(scope, receive, sending)


def _too_many(request: Request) -> Response:
    """429 in the reader's words: a page, or for the JSON API ``{"error": {"code", "message"}}``."""
    if not request.url.path.startswith("/api/"):
        return error_page(request, 429, "rate")
    with i18n.language(reader_language(request)):
        said = i18n._(REASONS["rate"])
    return JSONResponse(
        {"error": {"code": "rate", "message": said}}, status_code=429, headers={"Retry-After": "60"}
    )


_REASONS = {"csrf", "forbidden", "not-found", "rate", "link", "method", "bad-form", "broken"}


async def _api_error(exc: StarletteHTTPException) -> Response:
    # the JSON API's own errors carry {code, message} (pbem.web.api); others their reason
    detail = exc.detail if isinstance(exc.detail, dict) else str(exc.detail)
    return JSONResponse({"error": detail}, status_code=exc.status_code, headers=exc.headers)


def factory() -> FastAPI:
    """The application from the environment (``pbem serve`` with ``--workers`` > 1 starts each worker
    with it: uvicorn imports ``pbem.web.app:factory``)."""
    return create_app(from_env())
