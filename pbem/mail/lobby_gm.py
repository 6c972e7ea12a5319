"""``announce``: a game master opens a new game by mail, as ``pbem new GAME --open N`` does (issue 32).

    announce
    game: reef-7                 # the game master's own game: its address and password authenticate
    gm: gm@example.org
    password: tulip-frog-42
    new: reef-8                  # the new game's id
    type: reef-encounter
    seats: 4
    deadline: 48h                # optional, as the rest below
    start_by: 2026-12-20T18:00
    fill_with_bots: yes
    language: hu

The new game is open (:mod:`pbem.play.lobby`): players join it by mail. The record of the mail that
asked is written with it (:mod:`pbem.mail.gm`'s replay guard), so a copy of the mail opens nothing twice.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from pbem.core import clock
from pbem.core.errors import UserError
from pbem.core.i18n import LANGUAGES, _, ngettext
from pbem.core.registry import games as installed
from pbem.cron import admin
from pbem.cron.deadlines import parse_duration
from pbem.play import create, lobby
from pbem.storage.cron_models import GmActionRow


def announce(engine: Engine, gm_game: str, envelope: dict[str, Any], now: datetime, ref: str) -> str:
    """Open the game the lines describe; what the game master is told."""
    new_id, game_type, seats = (str(envelope.get(k) or "").strip() for k in ("new", "type", "seats"))
    if not create.GAME_ID.fullmatch(new_id):
        raise UserError(_("new: the new game's id, a letter then letters, digits, - or _ (at most 64)"))
    if game_type not in installed():
        kinds = ", ".join(sorted(installed()))
        raise UserError(_("type: one of the games of this host: {kinds}", kinds=kinds))
    if not seats.isdigit():
        raise UserError(_("seats: the number of seats, e.g. seats: 4"))
    settings: dict[str, Any] = {}
    if envelope.get("deadline"):
        settings["turn_seconds"] = parse_duration(str(envelope["deadline"]))
    if envelope.get("language"):
        if str(envelope["language"]) not in LANGUAGES:
            raise UserError(_("language: write one of {codes}", codes=", ".join(LANGUAGES)))
        settings["language"] = str(envelope["language"])
    start_by = _moment(envelope.get("start_by"))
    fill = envelope.get("fill_with_bots") in (True, "yes", "true")
    if fill and start_by is None:
        raise UserError(_("fill_with_bots: give start_by too, the date bots take the free seats"))
    record = GmActionRow(
        game_id=gm_game,
        at=now,
        action="announce",
        detail=f"opened {new_id} ({game_type}, {seats} seats) " + admin.MAIL_MARK.format(ref=ref),
    )
    lobby.open_game(
        engine,
        game_type,
        new_id,
        int(seats),
        settings=settings,
        start_by=start_by,
        fill_with_bots=fill,
        now=now,
        extra=[record],
    )
    return ngettext(
        "game {game} is open with {n} seat: players join it by mail with join {game}",
        "game {game} is open with {n} seats: players join it by mail with join {game}",
        int(seats),
        game=new_id,
    )


def _moment(value: Any) -> datetime | None:
    """``start_by:`` as YAML gives it (a date, a time, or text), in UTC; ``None`` when not given."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return clock.utc(value)
    try:
        return clock.utc(datetime.fromisoformat(str(value)))
    except ValueError:
        raise UserError(_("start_by: a date and time, e.g. start_by: 2026-12-20T18:00")) from None
