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

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from pbem.storage.db import connect
from pbem.web import auth, pages, routes
from pbem.web.api import api_bad_request, api_error
from pbem.web.limits import RateLimiter
from pbem.web.sessions import COOKIE, loaded, write_cookie
from pbem.web.settings import WebSettings, from_env
from pbem.web.words import REASONS, error_page

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


def create_app(settings: WebSettings) -> FastAPI:
    """The application over ``settings.db_url``'s database (which must exist: ``pbem new`` makes it)."""
    settings = settings.checked()
    app = FastAPI(
        title="pbem",
        summary="Board games played by email, and on the web",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    app.state.engine = connect(settings.db_url, create=False)
    app.state.limiter = RateLimiter()
    max_age = settings.session_days * 86400

    @app.middleware("http")
    async def _every_request(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        request.state.session = loaded(settings.secret_key, request.cookies.get(COOKIE), max_age)
        client = auth.client_of(request)
        limiter: RateLimiter = app.state.limiter
        if not limiter.allow(client, "any", settings.requests_per_minute) or (
            request.method == "POST"
            and request.url.path.startswith("/sign-in")
            and not limiter.allow(client, "sign-in", settings.sign_ins_per_minute)
        ):
            response: Response = (
                api_error(request, 429, "rate", REASONS["rate"])
                if request.url.path.startswith("/api/")
                else error_page(request, 429, "rate")
            )
        else:
            response = await call_next(request)
        session = request.state.session
        if session.changed:
            write_cookie(response, settings.secret_key, session, secure=settings.behind_tls, max_age=max_age)
        for name, value in _HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault("Content-Security-Policy", CSP)
        return response

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

    app.include_router(auth.router)
    app.include_router(pages.router)
    for router in routes.ROUTERS:
        app.include_router(router)
    return app


_REASONS = {"csrf", "forbidden", "not-found", "rate", "link", "method", "bad-form"}


async def _api_error(exc: StarletteHTTPException) -> Response:
    # the JSON API's own errors carry {code, message} (pbem.web.api); others their reason
    detail = exc.detail if isinstance(exc.detail, dict) else str(exc.detail)
    return JSONResponse({"error": detail}, status_code=exc.status_code, headers=exc.headers)


def factory() -> FastAPI:
    """The application from the environment (``pbem serve`` with ``--workers`` > 1 starts each worker
    with it: uvicorn imports ``pbem.web.app:factory``)."""
    return create_app(from_env())
