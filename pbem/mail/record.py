"""A player's record and notice URLs by mail (issue 32).

``record`` alone (or as the subject) answers the sender with **its own** record: every game of its
address, its reliability figure, and every missed deadline with its receipt. It needs no password,
because the answer goes to the From address and nowhere else: a stranger who forges a player's From
gets nothing, the player gets their own record, and nobody reads another address's record. With the
lines of a game master (``game:``, ``gm:``, ``password:``), ``record`` answers the figure of each
player of that game instead, which is what a game master choosing or keeping players needs.

``excuse`` (a game master's, with ``seat:`` and ``turn:``) excuses a seat's miss of that turn: it stays
in the record, shown as excused, and leaves the figure.

``notify: URL`` (with a seat's ``game:``, ``player:``, ``password:``) names a notice URL (apprise:
Discord, Matrix, Telegram, ntfy, Slack, json:// …) for that seat's "your move", reminders and "the game
ended"; ``notify: off`` drops them all. The URL is a secret (it holds a token): the answer never
repeats it, and the archived copy of the mail has it redacted (:mod:`pbem.mail.redaction`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from pbem.archive import reliability
from pbem.core import clock
from pbem.core.errors import UserError
from pbem.core.i18n import _, ngettext
from pbem.mail import commands, gm
from pbem.outbox import notices, readers
from pbem.outbox.settings import MailSettings
from pbem.storage.db import lock_game
from pbem.storage.models import GameRow


def _envelope(command: commands.Command) -> dict[str, Any] | commands.Answer:
    try:
        envelope = commands.read_envelope(command)
    except UserError as exc:
        return commands._refused(str(exc))
    return envelope if isinstance(envelope, dict) else {}


@commands.handles("record")
def record(
    engine: Engine,
    command: commands.Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> commands.Answer:
    """The sender's own record; with a game master's lines, the figures of that game's players."""
    envelope = _envelope(command)
    if isinstance(envelope, commands.Answer):
        return envelope
    if envelope.get("gm"):
        return _for_game_master(engine, envelope, from_address, clock.utc(now))
    found = reliability.record_of(engine, from_address)
    return commands.Answer(True, _("[pbem] your record"), reliability.text(found))


def _game_master(
    engine: Engine, envelope: dict[str, Any], from_address: str, now: datetime, subject: str
) -> tuple[str, commands.Answer | None]:
    """The game the game master's lines name, once they are authentic; else the refusal to send."""
    missing = [k for k in ("game", "gm", "password") if not envelope.get(k)]
    if missing:
        return "", gm._refused(
            subject,
            _(
                "missing {keys}: a game master command needs the lines game:, gm: and password:",
                keys=", ".join(missing),
            ),
        )
    game_id = str(envelope["game"])
    if not gm._authentic(engine, game_id, str(envelope["gm"]), str(envelope["password"]), from_address):
        if gm._guessing(engine, game_id, from_address, now):
            return game_id, commands.Answer(False, subject, "", silent=True)
        return game_id, gm._refused(
            subject,
            _(
                "game {game}: that game master address and password do not match, or this mail does not "
                "come from the game master's registered address",
                game=repr(game_id),
            ),
        )
    return game_id, None


def _for_game_master(
    engine: Engine, envelope: dict[str, Any], from_address: str, now: datetime
) -> commands.Answer:
    subject = _("[pbem {game}] the players' records", game=str(envelope.get("game", "")))
    game_id, refused = _game_master(engine, envelope, from_address, now, subject)
    if refused is not None:
        return refused
    lines = [
        _("The players of {game}, each with the record of their address on this host:", game=game_id),
        "",
    ]
    for seat, _email, found in reliability.players_of(engine, game_id):
        lines.append(f"  {seat}: {reliability.summary(found)}")
        lines += ["      " + reliability.receipt(miss) for miss in found.misses if miss.game_id == game_id]
    return commands.Answer(True, subject, "\n".join(lines) + "\n", game_id=game_id, seat=gm.THREAD)


@commands.handles("excuse")
def excuse(
    engine: Engine,
    command: commands.Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> commands.Answer:
    """A game master excuses a seat's miss of one turn."""
    moment = clock.utc(now)
    envelope = _envelope(command)
    if isinstance(envelope, commands.Answer):
        return envelope
    subject = _("[pbem {game}] game master: {command}", game=str(envelope.get("game", "")), command="excuse")
    game_id, refused = _game_master(engine, envelope, from_address, moment, subject)
    if refused is not None:
        return refused
    seat, turn = envelope.get("seat"), envelope.get("turn")
    if not seat or isinstance(turn, bool) or not isinstance(turn, int):
        return gm._refused(
            subject,
            _("excuse: give the lines `seat:` and `turn:`, e.g. `seat: red` and `turn: 12`"),
            game_id=game_id,
        )
    try:
        count = reliability.excuse(engine, game_id, str(seat), turn, from_address, moment)
    except UserError as exc:
        return gm._refused(subject, str(exc), game_id=game_id)
    said = _(
        "game {game}: the miss of seat {seat} in turn {turn} is excused; it stays in the record, marked so, "
        "and no longer counts.",
        game=game_id,
        seat=seat,
        turn=turn,
    )
    if count > 1:  # a turn the game waited for: every period of it
        said += " " + ngettext("({n} miss)", "({n} misses)", count)
    return commands.Answer(True, subject, said + "\n", game_id=game_id, seat=gm.THREAD)


@commands.handles("notify")
def notify(
    engine: Engine,
    command: commands.Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> commands.Answer:
    """``notify: URL`` or ``notify: off`` for the authenticated seat."""
    moment = clock.utc(now)
    envelope = _envelope(command)
    if isinstance(envelope, commands.Answer):
        return envelope
    try:
        game_id, seat = commands._authenticate(engine, envelope, from_address, moment)
    except commands._Held:
        return commands.Answer(False, "", "", silent=True)
    except UserError as exc:
        return commands._refused(str(exc))
    reader = readers.reader_of(engine, game_id, seat)
    with reader.speaking():
        answer = _notify(engine, game_id, seat, envelope.get("notify"), moment)
    return replace(answer, language=reader.language, game_id=game_id, seat=seat)


def _notify(engine: Engine, game_id: str, seat: str, value: Any, now: datetime) -> commands.Answer:
    subject = _("[pbem {game}] notices for {seat}", game=game_id, seat=seat)
    off = value is False or (isinstance(value, str) and value.strip().lower() in ("off", "no", "none"))
    with Session(engine) as session:
        lock_game(session, game_id)
        if off:
            dropped = notices.drop_targets(session, game_id, seat)
            session.commit()
            said = (
                _("Game {game}: no more notices for {seat} besides mail.", game=game_id, seat=seat)
                if dropped
                else _(
                    "Game {game}: {seat} had no notice URL; mail stays the only notice.",
                    game=game_id,
                    seat=seat,
                )
            )
            return commands.Answer(True, subject, said + "\n")
        try:
            url = notices.check_url(value if isinstance(value, str) else "")
            added = notices.add_target(session, game_id, seat, url, now)
        except UserError as exc:
            session.rollback()
            return commands._refused(str(exc))
        count = notices.targets_of(session, game_id, seat)
        game = session.get(GameRow, game_id)
        over = game is not None and game.status == "finished"
        session.commit()
    said = (
        _(
            "Game {game}: {seat} is told at that notice URL when a turn waits for its orders, before its "
            "deadline, and when the game ends. A notice says only that the turn is ready and by when; the "
            "report stays in the mail. Write `notify: off` to stop them.",
            game=game_id,
            seat=seat,
        )
        + " "
        + ngettext("The seat names {n} notice URL.", "The seat names {n} notice URLs.", count)
        if added
        else _("Game {game}: {seat} had named that notice URL already.", game=game_id, seat=seat)
    )
    if over:
        said += " " + _("The game is over: nothing more will be sent.")
    return commands.Answer(True, subject, said + "\n")
