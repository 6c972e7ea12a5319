"""The game master by mail (issue 14): the commands of ``pbem pause`` and its kin, mailed.

A game may have a game master address and password (``pbem new --gm EMAIL``, ``pbem gm ID --email
EMAIL``; the password is shown once and stored hashed, as a seat's). Mail from that address with that
password may carry one of the game master's commands, the word as the subject or the first line::

    extend
    game: reef-7
    gm: gm@example.org
    password: tulip-frog-42
    by: 2d

``pause`` and ``resume`` need nothing more; ``extend`` a ``by:`` (24h, 2d, 1d12h); ``rollback`` a
``turn:``; ``replace`` a ``seat:`` and the new player's ``email:`` (the new player gets the welcome
with the seat's password: it never comes back to the game master; ``email: bot:strong`` gives the seat
to the stand-in at that level); ``observe`` an ``email:`` and,
to take an observer away, ``remove: yes``. The word ``gm`` alone answers with this help.

Each command calls the same function as the CLI (:mod:`pbem.cron.admin`), so the answer is the CLI's.
Refused unless the sender is the registered address, the ``gm:`` line names it, and the password
matches; the refusal is the same whatever is wrong. A wrong password is logged with the sender and
counted (:data:`GUESS_ACTION` rows of ``cron_gm_action``); past
:data:`pbem.mail.guards.GUESSES_PER_HOUR` an hour, the sender gets no answer at all, as for seats.
The password is never written anywhere but as its hash: not in the answer, a log line or an error.

Once: the command's record (``cron_gm_action``, written in the command's own transaction) names the
mail by a digest of its sender and its words (the lines the password authenticates), so a run that
died after the command and is recovered answers "carried out already" instead of extending twice, and
a captured game master mail sent again, under a new Message-ID and whenever, is not carried out again
(issue 33: order mails had this replay guard, game master mails did not). A game master who means the
same command twice changes anything in it, a comment line will do. The record also
keeps where the deadline stood before, so that when the run died after the record but before the
calendar notices were queued, the recovery queues those still missing (each notice is queued once).
Two identical mails read in the same fetch count as one. A pause, resume, extension or rollback
mails each seat its calendar event updated (:func:`pbem.cron.notices.calendar_updates`), as the CLI does.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from pbem.core import clock
from pbem.core.codec import sha256_hex
from pbem.core.errors import UserError
from pbem.core.i18n import _, format_deadline
from pbem.core.search import policy_level
from pbem.cron import admin, notices
from pbem.cron.deadlines import parse_duration
from pbem.intake import addresses, passwords
from pbem.mail import guards, lobby_gm
from pbem.mail.commands import GM_COMMANDS, Answer, Command, handles, read_envelope
from pbem.mail.welcome import queue_welcomes
from pbem.outbox.settings import MailSettings, load_settings
from pbem.storage.cron_models import GmActionRow
from pbem.storage.models import GameMasterRow, GameRow

#: the commands a game master may mail; ``gm`` alone is the help
ACTIONS = ("pause", "resume", "extend", "replace", "rollback", "observe", "announce")
HELP = "gm"
COMMANDS = (*ACTIONS, HELP)
#: the ``cron_gm_action`` row a wrong game master password leaves (its detail: the sender)
GUESS_ACTION = "gm-refused"
#: the game master's thread: a name no seat can have (seat names are letters, digits and dashes)
THREAD = "@gm"


def help_text() -> str:
    """How a game master mails the commands."""
    return (
        "\n".join(
            [
                _("Game master commands by mail. Write the command as the subject or the first line,"),
                _("then the lines game:, gm: (your address as registered) and password:, for example:"),
                "",
                "    extend",
                "    game: reef-7",
                "    gm: gm@example.org",
                "    password: tulip-frog-42",
                "    by: 2d",
                "",
                _("pause stops the clock (the time left is kept); resume starts it again."),
                _("extend, with the line by: 24h (or 2d, 1d12h, 90m), moves the deadline later."),
                _("rollback, with the line turn: N, goes back to the state after turn N."),
                _("replace, with the lines seat: and email:, gives a seat to another player."),
                _("  (The new player gets the welcome with the seat's password; you do not.)"),
                _("  email: bot:easy (or bot:normal, bot:strong) gives the seat to the stand-in instead."),
                _("observe, with the line email: (and remove: yes to stop), sends the public reports."),
                _(
                    "announce, with the lines new:, type: and seats: (and deadline:, start_by:, "
                    "fill_with_bots: yes, language: if you like), opens a new game that players join by mail."
                ),
                _("record shows each player's record on this host: turns on time, and every miss."),
                _("excuse, with the lines seat: and turn:, excuses that seat's missed deadline."),
                _("The mail must come from the game master's registered address."),
            ]
        )
        + "\n"
    )


def set_game_master(engine: Engine, game_id: str, email: str) -> str:
    """Make ``email`` the game master of ``game_id`` (replacing any before) with a new password,
    returned to be shown once; the old password stops working."""
    address = _address(email)
    password = passwords.generate()
    hashed = passwords.hash_password(password)
    with Session(engine) as session:
        if session.get(GameRow, game_id) is None:
            raise UserError(f"there is no game {game_id!r}")
        row = session.get(GameMasterRow, game_id) or GameMasterRow(
            game_id=game_id, email=address, password_hash=""
        )
        row.email, row.password_hash = address, hashed
        session.add(row)
        session.add(GmActionRow(game_id=game_id, at=clock.utc(), action="gm", detail="game master set"))
        session.commit()
    return password


def check_address(email: str) -> str:
    """``email`` as the host stores it, or a :class:`UserError` saying what is wrong (``--gm``)."""
    return _address(email)


@handles(*GM_COMMANDS)
def run(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """Carry out a game master's mailed ``command`` for ``from_address``; the answer to mail back."""
    moment = clock.utc(now)
    subject = _("[pbem] game master: {command}", command=command.name)
    if command.name == HELP:
        return Answer(True, _("[pbem] game master commands"), help_text(), seat=None)
    try:
        envelope = read_envelope(command)
    except UserError as exc:
        return _refused(subject, str(exc))
    if not isinstance(envelope, dict):
        envelope = {}
    missing = [k for k in ("game", "gm", "password") if not envelope.get(k)]
    if missing:
        return _refused(
            subject,
            _(
                "missing {keys}: a game master command needs the lines game:, gm: and password:",
                keys=", ".join(missing),
            ),
        )
    game_id = str(envelope["game"])
    subject = _("[pbem {game}] game master: {command}", game=game_id, command=command.name)
    if not _authentic(engine, game_id, str(envelope["gm"]), str(envelope["password"]), from_address):
        if _guessing(engine, game_id, from_address, moment):
            return Answer(False, subject, "", silent=True)
        return _refused(
            subject,
            _(
                "game {game}: that game master address and password do not match, or this mail does not "
                "come from the game master's registered address",
                game=repr(game_id),
            ),
        )
    # the same words carried out before: this mail read again by a run recovering a dead one (it gets
    # the moment of the first claim), or a copy sent again (a replay)
    ref = sha256_hex("|".join([from_address.lower(), command.name, command.envelope_text]))
    done_at = _done_at(engine, game_id, ref[:24])
    if done_at is not None and done_at != moment:
        said = _(
            "game {game}: a mail with these very words had its {command} carried out on {when}; a copy "
            "is not carried out again. To give the same command again, change anything in the mail (a "
            "comment line will do) and send it again.",
            game=game_id,
            command=command.name,
            when=format_deadline(done_at),
        )
        return Answer(True, subject, said + "\n", game_id=game_id, seat=THREAD)
    if done_at is not None:
        said = _(
            "game {game}: this mail's {command} was carried out already; nothing was done again",
            game=game_id,
            command=command.name,
        )
        told = _recovered_notices(engine, game_id, ref[:24], settings, moment)
        return Answer(True, subject, said + notices.told_line(told) + "\n", game_id=game_id, seat=THREAD)
    try:
        said = _carry_out(engine, command.name, game_id, envelope, settings, moment, ref[:24])
    except UserError as exc:
        return _refused(subject, str(exc), game_id=game_id)
    return Answer(True, subject, said + "\n", game_id=game_id, seat=THREAD)


def _carry_out(
    engine: Engine,
    name: str,
    game_id: str,
    envelope: dict[str, Any],
    settings: MailSettings | None,
    now: datetime,
    ref: str,
) -> str:
    """The command, by the CLI's own functions; what the CLI would print. ``ref`` names the mail in
    the command's record (:func:`pbem.cron.admin.done_by_mail`)."""
    if name == "observe":
        email = _text(envelope, "email")
        return admin.observe(engine, game_id, email, now, remove=envelope.get("remove") is True, ref=ref)
    if name == "replace":
        return _replace(engine, game_id, envelope, settings, now, ref)
    if name == "announce":  # a new open game (issue 32): no deadline of this game moves
        return lobby_gm.announce(engine, game_id, envelope, now, ref)
    if name == "pause":
        change = lambda: admin.pause(engine, game_id, now, ref=ref)  # noqa: E731
    elif name == "resume":
        change = lambda: admin.resume(engine, game_id, now, ref=ref)  # noqa: E731
    elif name == "extend":
        seconds = parse_duration(_text(envelope, "by"))
        change = lambda: admin.extend(engine, game_id, seconds, now, ref=ref)  # noqa: E731
    else:
        turn = envelope.get("turn")
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise UserError(_("rollback: give the turn to go back to, e.g. turn: 3"))
        change = lambda: admin.rollback(engine, game_id, turn, now, ref=ref)  # noqa: E731
    said, told = notices.calendar_updates(engine, game_id, now, change, settings=settings)
    return said + notices.told_line(told)


def _done_at(engine: Engine, game_id: str, ref: str) -> datetime | None:
    """When the command of the mail ``ref`` names was carried out (its record's moment), if it was."""
    with Session(engine) as session:
        at = session.exec(
            select(GmActionRow.at).where(
                GmActionRow.game_id == game_id,
                col(GmActionRow.detail).endswith(admin.MAIL_MARK.format(ref=ref)),
            )
        ).first()
    return clock.utc(at) if at is not None else None


def _recovered_notices(
    engine: Engine, game_id: str, ref: str, settings: MailSettings | None, now: datetime
) -> list[str]:
    """The calendar notices a run that died after the command's record (its own transaction) did not
    queue: from where the record says the deadline stood to where it stands. Each notice is queued once,
    so those the dead run queued are not queued again; the seats mailed now."""
    was = admin.deadline_before(engine, game_id, ref)
    if was is None:  # a command that moves no deadline (replace, observe)
        return []
    return notices.calendar_notices(
        engine, game_id, now, notices.Deadline(*was), notices.deadline_now(engine, game_id), settings=settings
    )


def _replace(
    engine: Engine,
    game_id: str,
    envelope: dict[str, Any],
    settings: MailSettings | None,
    now: datetime,
    ref: str,
) -> str:
    """``pbem replace`` by mail: the new player gets the welcome with the seat's password; the game
    master's answer says where it went, never what it is."""
    seat, email = _text(envelope, "seat"), _text(envelope, "email")
    if email.startswith("bot") and "@" not in email:  # email: bot:strong gives the seat to the stand-in
        level = policy_level(email)
        if level is None:
            raise UserError(
                _("{value} is no stand-in: write bot:easy, bot:normal or bot:strong", value=email)
            )
        admin.replace_by_standin(engine, game_id, seat, level, now, ref=ref)
        return _(
            "seat {seat} of {game} is now played by the stand-in ({level})",
            seat=seat,
            game=game_id,
            level=level,
        )
    password = admin.replace(engine, game_id, seat, email, now, ref=ref)
    address = _address(email)
    welcomed = queue_welcomes(
        engine, game_id, {seat: password}, settings=settings or load_settings(), now=now, replaced=True
    )
    said = _("seat {seat} of {game} now belongs to {address}", seat=seat, game=game_id, address=address)
    if welcomed:
        said += "\n" + _(
            "welcome mail, with the seat's password, queued for {seat} at {address}",
            seat=seat,
            address=address,
        )
    return said


def _text(envelope: dict[str, Any], key: str) -> str:
    value = envelope.get(key)
    if value is None or isinstance(value, (dict, list, bool)) or not str(value).strip():
        examples = {"by": "by: 2d", "seat": "seat: red", "email": "email: carol@example.org"}
        raise UserError(
            _("missing {key}: write it as {example}", key=f"{key}:", example=examples.get(key, key))
        )
    return str(value).strip()


def _authentic(engine: Engine, game_id: str, named: str, password: str, from_address: str) -> bool:
    """Whether the mail is the game master's: registered address = ``gm:`` line = sender, and the
    password. The password is checked (and its time spent) whatever else is wrong."""
    with Session(engine) as session:
        row = session.get(GameMasterRow, game_id)
    matches = passwords.verify(password, row.password_hash if row else None)
    if row is None or not matches:
        return False
    registered = row.email.strip().lower()
    return registered == named.strip().lower() == from_address.strip().lower()


def _guessing(engine: Engine, game_id: str, frm: str, now: datetime) -> bool:
    """Record and log a refused game master mail; ``True`` when this sender is past the hourly limit
    and gets no answer any more."""
    with Session(engine) as session:
        if session.get(GameRow, game_id) is not None:
            session.add(GmActionRow(game_id=game_id, at=now, action=GUESS_ACTION, detail=frm[:320]))
            session.commit()
        recent = session.exec(
            select(func.count()).where(
                GmActionRow.action == GUESS_ACTION,
                GmActionRow.detail == frm[:320],
                GmActionRow.at > now - timedelta(hours=1),
            )
        ).one()
    silenced = recent > guards.GUESSES_PER_HOUR
    guards.log.warning(
        "wrong game master password or address in mail from %s for game %r (%d in the last hour%s)",
        frm,
        game_id,
        recent,
        "; not answered any more" if silenced else "",
    )
    return silenced


def _refused(subject: str, message: str, *, game_id: str | None = None) -> Answer:
    body = _("Your request was not carried out:") + f"\n\n  - {message}\n\n" + help_text()
    return Answer(False, subject, body, errors=[message], game_id=game_id, seat=THREAD if game_id else None)


def _address(email: str) -> str:
    try:
        return addresses.normalise(email)
    except addresses.AddressError as exc:
        raise UserError(str(exc)) from None
