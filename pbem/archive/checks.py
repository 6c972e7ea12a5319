"""What an archive brings in, checked before anything is stored: its settings as ``pbem new`` checks
them (one check, :func:`pbem.play.create.check_settings`), its addresses as the host's door checks them,
its numbers within what the database's columns hold and its times within the years the host keeps. A
hostile or damaged archive is refused in words naming where it is wrong, never half stored, and never
stored in a shape a later tick cannot run.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from pbem.archive.store import SETTINGS
from pbem.core import clock
from pbem.core.errors import UserError
from pbem.intake import addresses
from pbem.play.create import check_settings
from pbem.storage.models import MAX_INT, MAX_INT64


class Clock(BaseModel, extra="forbid"):
    """The deadline's bookkeeping (:class:`~pbem.storage.cron_models.ClockRow`) as an archive keeps it."""

    epoch: int = Field(default=0, ge=0, le=MAX_INT)
    turn: int = Field(default=0, ge=0, le=MAX_INT)
    paused_left: int | None = Field(default=None, ge=0, le=MAX_INT64)


def game_master(email: str | None, path: str) -> str | None:
    """The archive's game master address as the host stores it; refused by name before anything is
    stored when it is not an address."""
    if email is None or not email.strip():
        return None
    try:
        return addresses.normalise(email)
    except addresses.AddressError as exc:
        raise UserError(f"{path}: the game master address {email!r}: {exc}") from None


def moment(section: dict[str, Any], key: str, default: datetime | None) -> datetime | None:
    """The game section's time ``key`` within the years the host keeps (``default`` when it has none)."""
    value = section.get(key)
    return default if value is None else clock.checked(str(value), f"the archive's game.{key}")


#: the settings an archive's game section keeps beside ``settings`` (OPTIONAL_GAME's that are settings)
_SECTION_SETTINGS = ("absence", "absence_days", "press")


def settings(section: dict[str, Any]) -> dict[str, Any]:
    """The game row's settings from the archive's game section, checked as ``pbem new`` checks them."""
    kept = section.get("settings") or {}
    if not isinstance(kept, dict):
        raise UserError(f"the archive's game.settings must be a mapping of {', '.join(SETTINGS)}")
    unknown = set(kept) - set(SETTINGS)
    if unknown:
        raise UserError(
            f"the archive's settings hold {', '.join(sorted(unknown))}; this host knows {', '.join(SETTINGS)}"
        )
    found = {**kept, **{key: section[key] for key in _SECTION_SETTINGS if key in section}}
    names = {key: f"the archive's game.settings.{key}" for key in SETTINGS}
    names.update({key: f"the archive's game.{key}" for key in _SECTION_SETTINGS})
    return check_settings(found, names)


def observers(given: list[str]) -> list[str]:
    """The archive's observers as the host stores addresses, each checked (a hostile file may hold
    header lines or markup where an address belongs), once each."""
    out: list[str] = []
    for at, email in enumerate(given):
        try:
            address = addresses.normalise(email)
        except addresses.AddressError as exc:
            raise UserError(f"the archive's observers[{at}]: {exc}") from None
        if address not in out:
            out.append(address)
    return out


def clock_row(given: Any) -> dict[str, Any] | None:
    """The archive's deadline bookkeeping as the clock row's columns, each number within its column."""
    if given is None:
        return None
    try:
        return Clock.model_validate(given).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"the archive's game.clock{'.' + where if where else ''}: {first['msg']}") from None


def epoch(value: Any) -> int:
    """The game's epoch (rollbacks so far) as the archive gives it, a whole number its column holds."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
        raise UserError(
            f"the archive's game.epoch {str(value)[:40]!r}: write a whole number from 0 to {MAX_INT}"
        )
    return value
