"""One-click sign-in links for the web host (issue 30), made here so that every report and welcome mail can
carry one, and read back by :mod:`pbem.web.auth`.

A link is ``<web url>/in/<token>``: the token is signed (itsdangerous, HMAC-SHA1 over the host's secret
key) and holds the game, the seat, the seat's link generation and the moment it expires. A password reset
or a ``replace`` raises the seat's generation (``SeatRow.link_generation``), so every link made before stops
signing in. Nothing in the token is secret (it is signed, not encrypted): the game and seat names it holds
are the ones the mail carrying it names anyway.

The web address and the key come from the host's settings: ``PBEM_WEB_URL`` (or ``url`` in the
``[web]`` table of ``pbem.toml``) and ``PBEM_WEB_SECRET`` (or a file named by ``PBEM_WEB_SECRET_FILE``:
a key is never read from the settings file, which may be shared). Without both, mails carry no link and
are byte for byte what they were.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer

from pbem.core.clock import utc
from pbem.core.i18n import _

URL_ENV = "PBEM_WEB_URL"
SECRET_ENV = "PBEM_WEB_SECRET"
SECRET_FILE_ENV = "PBEM_WEB_SECRET_FILE"
#: how long a mailed link signs in: a turn's report is read within days, and the next mail brings a new one
LINK_DAYS = 14
_SALT = "pbem-sign-in-link"
#: the path of a sign-in link under the web address (pbem.web.auth serves it)
LINK_PATH = "/in/"


@dataclass(frozen=True)
class LinkSettings:
    """Where the web host is, and the key its links and cookies are signed with (``repr`` hides it)."""

    url: str | None = None
    secret: str | None = field(default=None, repr=False)
    days: int = LINK_DAYS

    @property
    def enabled(self) -> bool:
        return bool(self.url and self.secret)


@dataclass(frozen=True)
class LinkClaim:
    """What a valid token says: the seat, and the generation of its links it was made for."""

    game_id: str
    seat: str
    generation: int


def load_links(env: Mapping[str, str] | None = None, config: str | Path | None = None) -> LinkSettings:
    """The web address and key from the environment (first) and ``[web] url`` of the settings file."""
    env = os.environ if env is None else env
    url = env.get(URL_ENV) or _configured_url(env, config)
    secret = env.get(SECRET_ENV) or None
    if secret is None and env.get(SECRET_FILE_ENV):
        try:
            secret = Path(env[SECRET_FILE_ENV]).read_text(encoding="utf-8").strip() or None
        except OSError:
            secret = None  # no key: no links (pbem serve says why it cannot start)
    return LinkSettings(url.rstrip("/") if url else None, secret)


def _configured_url(env: Mapping[str, str], config: str | Path | None) -> str | None:
    path = (
        Path(config) if config else Path(env["PBEM_CONFIG"]) if env.get("PBEM_CONFIG") else Path("pbem.toml")
    )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None  # the mail settings read the same file and say what is wrong with it
    section: Any = data.get("web", {})
    url = section.get("url") if isinstance(section, dict) else None
    return url if isinstance(url, str) and url.strip() else None


def _serializer(secret: str) -> URLSafeSerializer:
    return URLSafeSerializer(secret, salt=_SALT)


def make_token(secret: str, game_id: str, seat: str, generation: int, expires: datetime) -> str:
    """A signed token for the seat's links of ``generation``, good until ``expires``."""
    return str(_serializer(secret).dumps([game_id, seat, generation, int(utc(expires).timestamp())]))


def read_token(secret: str, token: str, now: datetime) -> LinkClaim | None:
    """What a token says, or ``None`` for a token that is forged, damaged or expired (one answer for all:
    whoever tries tokens learns nothing from which way one fails)."""
    try:
        game_id, seat, generation, expires = _serializer(secret).loads(token)
    except (BadSignature, ValueError, TypeError):
        return None
    if not (isinstance(game_id, str) and isinstance(seat, str) and isinstance(generation, int)):
        return None
    if not isinstance(expires, int) or utc(now).timestamp() >= expires:
        return None
    return LinkClaim(game_id, seat, generation)


def link(links: LinkSettings, game_id: str, seat: str, generation: int, now: datetime) -> str | None:
    """The seat's sign-in link made at ``now``, or ``None`` when the host serves no web."""
    if not links.enabled:
        return None
    token = make_token(links.secret or "", game_id, seat, generation, utc(now) + timedelta(days=links.days))
    return f"{links.url}{LINK_PATH}{token}"


def link_lines(url: str | None) -> list[str]:
    """The lines a mail's text gives the link in (none without one)."""
    if url is None:
        return []
    return [_("Sign in on the web, no password needed (this link is yours alone; do not forward it):"), url]


def with_link(text: str, page: str, url: str | None) -> tuple[str, str]:
    """A report's text and page with the seat's sign-in link at their end, after the table, so the
    page's table keeps its place (``ReportRow.table_at``)."""
    if url is None:
        return text, page
    said = link_lines(url)
    text = text.rstrip("\n") + "\n\n" + "\n".join(said) + "\n"
    paragraph = f'<p class="block small"><a href="{_escaped(url)}">{_escaped(said[0])}</a></p>\n'
    end = page.rfind("</td></tr></table>")
    if end < 0:
        end = page.rfind("</body>")
    if end < 0:
        return text, page + paragraph
    return text, page[:end] + paragraph + page[end:]


def _escaped(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
