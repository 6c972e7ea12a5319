"""What ``pbem serve`` runs with: the database, the key that signs links and cookies, whether a TLS proxy
stands in front (then cookies are ``Secure``), and how many requests a client may make.

The key is the host's (``PBEM_WEB_SECRET`` or ``PBEM_WEB_SECRET_FILE``, as :mod:`pbem.outbox.signin`
reads it for the mails' links): the one ``pbem tick`` signs the mailed links with. It is never written into
a page, a log or a file the app makes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from pbem.core.errors import UserError
from pbem.outbox.signin import SECRET_ENV, SECRET_FILE_ENV, load_links

#: a key shorter than this is refused: it signs every session
MIN_SECRET_CHARS = 32


@dataclass(frozen=True)
class WebSettings:
    """The web host's settings (``repr`` hides the key)."""

    db_url: str | None = None
    secret_key: str = field(default="", repr=False)
    #: behind a TLS-terminating proxy: cookies get ``Secure``, and the client's address is the proxy's
    #: ``X-Forwarded-For`` (uvicorn's ``--proxy-headers``)
    behind_tls: bool = False
    #: the public address of the host, as mails' links name it (None: links are not offered)
    public_url: str | None = None
    #: how long a web session lasts without signing in again
    session_days: int = 30
    #: requests one client may make in a minute (every page), and sign-in tries in a minute
    requests_per_minute: int = 240
    sign_ins_per_minute: int = 10

    def checked(self) -> WebSettings:
        if len(self.secret_key) < MIN_SECRET_CHARS:
            raise UserError(
                f"pbem serve needs a key of at least {MIN_SECRET_CHARS} characters to sign its links and "
                f"cookies: set ${SECRET_ENV} (or ${SECRET_FILE_ENV}, a file holding it), the same key "
                "pbem tick mails the links with; for example: python -c "
                "'import secrets; print(secrets.token_urlsafe(48))'"
            )
        return self


def from_env(env: Mapping[str, str] | None = None, **overrides: object) -> WebSettings:
    """The settings from the environment (``PBEM_DB``, ``PBEM_WEB_*``), then ``overrides`` (the CLI's)."""
    env = os.environ if env is None else env
    links = load_links(env)
    values: dict[str, object] = {
        "db_url": env.get("PBEM_DB") or None,
        "secret_key": links.secret or "",
        "public_url": links.url,
        "behind_tls": env.get("PBEM_WEB_TLS", "").lower() in ("1", "yes", "true"),
    }
    for key, name in (
        ("requests_per_minute", "PBEM_WEB_RATE"),
        ("sign_ins_per_minute", "PBEM_WEB_SIGNIN_RATE"),
    ):
        if env.get(name):
            try:
                values[key] = int(env[name])
            except ValueError:
                raise UserError(
                    f"${name} must be a whole number of requests a minute, not {env[name]!r}"
                ) from None
    values.update({k: v for k, v in overrides.items() if v is not None})
    return WebSettings(**values).checked()  # type: ignore[arg-type]
