"""Mail settings: a TOML file for what may be shared, the environment for what must stay secret.

``pbem.toml`` (in the working directory, or ``--config`` / ``$PBEM_CONFIG``)::

    [mail]
    from = "pbem@example.org"           # the host's own address: From of every mail, and the loop guard
    name = "pbem host"                  # display name (optional)
    smtp = "smtp://pbem@mail.example.org:587?starttls=1"   # or smtps://…, or leave out and use outbox
    outbox = "/var/spool/pbem/outbox"   # a Maildir to drop mail into instead of SMTP (optional)
    imap = "imaps://pbem@mail.example.org:993/INBOX"
    imap_after = "seen"                 # what becomes of mail once read: seen (flag it), move, delete
    imap_move_to = "pbem-read"          # the folder imap_after = "move" moves it to (made if missing)
    retry_seconds = 60                  # first retry after a refused delivery; doubles each time
    retry_max_seconds = 21600           # the longest wait between two tries
    max_attempts = 8                    # permanent refusals (5xx) give up after this many tries
    max_message_bytes = 1000000         # larger mail is answered with "too large", not read

The environment overrides the file: ``PBEM_MAIL_FROM``, ``PBEM_SMTP_URL``, ``PBEM_IMAP_URL``,
``PBEM_OUTBOX``. Passwords come only from ``PBEM_SMTP_PASSWORD`` and ``PBEM_IMAP_PASSWORD``: a password
written into the file or into a URL is refused, so it cannot be copied into the database, a log or a
report by accident.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pbem.outbox.errors import MailError

SMTP_PASSWORD_ENV = "PBEM_SMTP_PASSWORD"
IMAP_PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
DEFAULT_FROM = "pbem@localhost"


@dataclass(frozen=True)
class MailSettings:
    from_addr: str = DEFAULT_FROM
    from_name: str = "pbem"
    smtp_url: str | None = None
    outbox_dir: str | None = None
    imap_url: str | None = None
    #: what ``pbem mail fetch`` and ``pbem tick`` do with an IMAP message once it is recorded
    imap_after: str = "seen"
    imap_move_to: str | None = None
    retry_seconds: int = 60
    retry_max_seconds: int = 6 * 3600
    max_attempts: int = 8
    max_message_bytes: int = 1_000_000
    #: the secrets, read from the environment; ``repr`` hides them (settings get logged)
    smtp_password: str | None = field(default=None, repr=False)
    imap_password: str | None = field(default=None, repr=False)

    @property
    def loop_tag(self) -> str:
        """The value of the ``X-Loop`` header on every mail we send; mail carrying it is never read."""
        return self.from_addr.lower()

    def secrets(self) -> list[str]:
        return [s for s in (self.smtp_password, self.imap_password) if s]


_INT_KEYS = ("retry_seconds", "retry_max_seconds", "max_attempts", "max_message_bytes")
_STR_KEYS = {
    "from": "from_addr",
    "name": "from_name",
    "smtp": "smtp_url",
    "outbox": "outbox_dir",
    "imap": "imap_url",
    "imap_after": "imap_after",
    "imap_move_to": "imap_move_to",
}
#: the values of ``imap_after``: flag the message Seen and leave it, move it to ``imap_move_to``, delete it
IMAP_AFTER = ("seen", "move", "delete")
_ENV_KEYS = {
    "PBEM_MAIL_FROM": "from_addr",
    "PBEM_SMTP_URL": "smtp_url",
    "PBEM_IMAP_URL": "imap_url",
    "PBEM_OUTBOX": "outbox_dir",
}


def load_settings(
    config: str | Path | None = None, env: Mapping[str, str] | None = None, **overrides: str | int | None
) -> MailSettings:
    """Settings from the config file, then the environment, then ``overrides`` (the CLI's options).

    Raises :class:`MailError` for an unreadable file, an unknown key, or a password outside the
    environment.
    """
    env = os.environ if env is None else env
    path = Path(config) if config else Path(env["PBEM_CONFIG"]) if env.get("PBEM_CONFIG") else None
    if path is None and Path("pbem.toml").is_file():
        path = Path("pbem.toml")
    values: dict[str, str | int | None] = {}
    if path is not None:
        values.update(_from_file(path))
    for name, key in _ENV_KEYS.items():
        if env.get(name):
            values[key] = env[name]
    values.update({k: v for k, v in overrides.items() if v is not None})
    for key in ("smtp_url", "imap_url"):
        url = values.get(key)
        if isinstance(url, str) and urlsplit(url).password is not None:
            what = "PBEM_SMTP_PASSWORD" if key == "smtp_url" else "PBEM_IMAP_PASSWORD"
            raise MailError(f"{key.split('_')[0]} URL holds a password: remove it and set ${what} instead")
    after = values.get("imap_after", "seen")
    if after not in IMAP_AFTER:
        raise MailError(f"imap_after = {after!r} is not understood: write seen, move or delete")
    if after == "move" and not values.get("imap_move_to"):
        raise MailError('imap_after = "move" needs the folder to move to: imap_move_to = "pbem-read"')
    return MailSettings(
        **values,  # type: ignore[arg-type]  # keys and types checked by _from_file and above
        smtp_password=env.get(SMTP_PASSWORD_ENV) or None,
        imap_password=env.get(IMAP_PASSWORD_ENV) or None,
    )


def _from_file(path: Path) -> dict[str, str | int]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MailError(f"cannot read the config file {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MailError(f"config file {path} is not valid TOML: {exc}") from None
    section = data.get("mail", {})
    if not isinstance(section, dict):
        raise MailError(f"config file {path}: [mail] must be a table")
    out: dict[str, str | int] = {}
    for key, value in section.items():
        if "password" in key.lower() or "secret" in key.lower():
            raise MailError(
                f"config file {path}: [mail] {key} — passwords are read only from the environment "
                f"(${SMTP_PASSWORD_ENV}, ${IMAP_PASSWORD_ENV}), never from a file"
            )
        if key in _STR_KEYS and isinstance(value, str):
            out[_STR_KEYS[key]] = value
        elif key in _INT_KEYS and isinstance(value, int) and not isinstance(value, bool) and value > 0:
            out[key] = value
        else:
            known = ", ".join([*_STR_KEYS, *_INT_KEYS])
            raise MailError(
                f"config file {path}: [mail] {key} = {value!r} is not understood (known: {known})"
            )
    return out
