"""The reader's language on the web, and pages rendered in it.

A seat's page is in the seat's language (as its mails are); any other page in the language the reader
chose (``?lang=``, then kept in the session), else the first of the browser's ``Accept-Language`` that the
host speaks, else English. Pages are templates of ``templates/web/`` in the reports' own Jinja environment
(:func:`pbem.render.environment.environment`), autoescaped.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse

from pbem.core import i18n
from pbem.core.i18n import N_
from pbem.render.environment import environment
from pbem.web.sessions import csrf_token, session_of

#: the host's name, as the pages' titles and bar show it
SITE = "pbem"
#: what an error page says, by the reason an error was raised with
REASONS = {
    "csrf": N_(
        "This form has expired or did not come from this site. Go back, reload the page and send it again."
    ),
    "forbidden": N_("This page belongs to another seat or game. Sign in as its player to read it."),
    "not-found": N_("There is no such page here."),
    "rate": N_("Too many requests from your address in a minute. Wait a minute, then try again."),
    "link": N_(
        "This sign-in link no longer works: it has expired, or the seat's password was reset or the seat "
        "given to another player since. Use the link in your latest mail, or sign in with your password."
    ),
    "method": N_("This page cannot be used that way."),
    "broken": N_("Something went wrong on the host; it has been noted. Try again in a while."),
    "bad-form": N_(
        "This form was sent incomplete, or with a field longer than it takes. Go back, correct it and "
        "send it again."
    ),
}
TITLES = {
    400: N_("Bad request"),
    403: N_("Not yours"),
    404: N_("Not found"),
    405: N_("Not allowed"),
    422: N_("Bad request"),
    429: N_("Too many requests"),
    500: N_("Something went wrong"),
}


def accepted(header: str | None) -> str | None:
    """The first language of an ``Accept-Language`` header the host speaks (by its ``q`` order)."""
    offered = []
    for at, part in enumerate((header or "").split(",")):
        code, _sep, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        offered.append((-weight, at, code.strip()))
    for _weight, _at, code in sorted(offered):
        try:
            return i18n.check_language(code)
        except i18n.UnknownLanguage:
            continue
    return None


def reader_language(request: Request) -> str:
    """The language of a page that is no seat's: ``?lang=``, the session's choice, the browser's."""
    wanted = request.query_params.get("lang")
    if wanted:
        try:
            return i18n.check_language(wanted)
        except i18n.UnknownLanguage:
            pass
    chosen = session_of(request).lang
    if chosen in i18n.LANGUAGES:
        return chosen  # type: ignore[return-value]
    return accepted(request.headers.get("accept-language")) or i18n.DEFAULT_LANGUAGE


def render(
    request: Request,
    name: str,
    lang: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    """The page ``templates/web/<name>.html.j2`` in ``lang``, with what every page shows (who is signed
    in, the CSRF token of its forms, the languages to choose from)."""
    session = session_of(request)
    with i18n.language(lang):
        page = (
            environment()
            .get_template(f"web/{name}.html.j2")
            .render(
                language=lang,
                site=SITE,
                languages=[(code, i18n.NAMES[code]) for code in i18n.LANGUAGES],
                csrf=csrf_token(request),
                signed_in=session.signed_in,
                path=request.url.path,
                **context,
            )
        )
    return HTMLResponse(page, status_code=status, headers=headers)


def error_page(request: Request, status: int, reason: str, lang: str | None = None) -> HTMLResponse:
    """An error in the reader's words: what went wrong and what to do, never an internal."""
    code = lang or reader_language(request)
    with i18n.language(code):
        title = i18n._(TITLES.get(status, N_("Bad request")))
        said = i18n._(REASONS.get(reason, REASONS["not-found"]))
    headers = {"Retry-After": "60"} if status == 429 else None
    return render(request, "message", code, status=status, headers=headers, title=title, message=said)
