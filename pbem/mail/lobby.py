"""Open games by mail (issue 32): ``games``, ``join``, ``leave``, ``standby``, ``resign``, ``concede``.

    games                      the open games and their free seats (no password needed)
    join reef-9                take a seat (or: join reef-9 ann hu: the seat's name and language)
    leave reef-9               give it back before the game starts
    standby reef-encounter     be offered seats that need a new player (standby off: no more)
    resign / concede           with the lines game:, player:, password: of the seat

None of them changes anything by itself: each mails a one-time code to the address concerned (the
sender's for ``join`` and ``standby``, the seat's registered one for the others), and only the code
sent back from that address does it (:mod:`pbem.mail.lobby_confirm`). So a forged From signs nobody
up: the owner of the address gets the code, and nothing happens unless they send it back.

The code and its mail are written with the record of the mail that asked (:class:`LobbyAnswer`'s
``write``, as :mod:`pbem.mail.press` does), so a run that dies and is recovered mails one code, not two.
The answers say nothing but what the host shows anyone (the open games, its own words): a stranger
reads them as they are (:mod:`pbem.mail.backscatter`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import clock
from pbem.core.errors import UserError
from pbem.core.i18n import LANGUAGES, N_, _, current_language, ngettext
from pbem.core.registry import games as installed
from pbem.cron.deadlines import show_deadline
from pbem.cron.replacements import code_subject, issue_code, reply_line
from pbem.mail import commands
from pbem.mail.commands import Answer, Command, handles
from pbem.mail.helptext import HELP
from pbem.outbox.settings import MailSettings, load_settings
from pbem.play import lobby
from pbem.storage.models import GameRow, LobbyGameRow, LobbySeatRow, SeatRow, StandbyRow

HELP.update(
    {
        "games": ("games", N_("the games open for joining, with their free seats; needs no password.")),
        "join": (
            "join reef-9",
            N_(
                "take a seat in an open game; add a seat name and a language if you like (`join reef-9 "
                "ann hu`). A code comes back by mail: reply to it to confirm."
            ),
        ),
        "leave": ("leave reef-9", N_("give your seat back before the game starts (confirmed by a code).")),
        "standby": (
            "standby reef-encounter",
            N_(
                "be offered seats of that game that need a new player; `standby off` takes you off every "
                "list."
            ),
        ),
        "resign": (
            "resign",
            N_(
                "with your seat's lines `game:`, `player:`, `password:`: leave a running game; a code "
                "comes to your seat's address, and once you confirm, the bot plays your seat until a new "
                "player takes it."
            ),
        ),
        "concede": (
            "concede",
            N_(
                "as `resign`, where the game's rules let a seat concede; in the games of this host a "
                "conceded seat is offered to a new player as after `resign`."
            ),
        ),
        "confirm": (
            "confirm K7QD-M2XA-9RTE",
            N_("send back a code the host mailed you: what it asked is done."),
        ),
    }
)


@dataclass(frozen=True)
class LobbyAnswer(Answer):
    """An answer and the code to write with the record of the mail it answers."""

    write: Callable[[Session, str], None] | None = None
    #: the answer repeats nothing of the mail (see the module)
    echo_free: bool = True


def _refused(message: str) -> LobbyAnswer:
    return LobbyAnswer(False, _("[pbem] your request was not carried out"), "", errors=[message])


def fields(command: Command) -> tuple[list[str], dict[str, str]]:
    """The words after the command on its line, and the ``key: value`` lines below it (read as plain
    lines, not YAML: these commands are short and a stray colon must not make them unreadable)."""
    lines = {}
    for line in command.envelope_text.splitlines():
        key, sep, value = line.partition(":")
        if sep and re.fullmatch(r"\s*[A-Za-z]+\s*", key):
            lines[key.strip().lower()] = value.split("#")[0].strip().strip("'\"")
    return command.argument.split(), lines


@handles("games")
def list_games(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """The open games, each with its free seats and how it starts."""
    found = lobby.open_games(engine)
    if not found:
        kinds = ", ".join(sorted(installed()))
        text = (
            _("No game is open for joining now.")
            + "\n\n"
            + _(
                "To be offered a seat when a game needs a new player, send: standby GAME (one of {kinds}).",
                kinds=kinds,
            )
        )
        return LobbyAnswer(True, _("[pbem] open games"), text + "\n")
    lines = [_("Games open for joining:"), ""]
    for game in found:
        lines.append(
            "  "
            + ngettext(
                "{game}: {title}, {free} of {n} seat free",
                "{game}: {title}, {free} of {n} seats free",
                game.seats,
                game=game.id,
                title=game.title,
                free=game.free,
            )
        )
        if game.start_by is not None:
            when = show_deadline(game.start_by) or ""
            lines.append(
                "    "
                + (
                    _("starts when full, or on {when} with bots in the empty seats", when=when)
                    if game.fill_with_bots
                    else _("starts when full; cancelled if not full by {when}", when=when)
                )
            )
        else:
            lines.append("    " + _("starts when every seat is taken"))
    lines += [
        "",
        _(
            "To join one, send a mail whose first line is: join GAME (a seat name and a language may "
            "follow: join {example} ann hu). A code comes back: reply to it to take the seat.",
            example=found[0].id,
        ),
    ]
    return LobbyAnswer(True, _("[pbem] open games"), "\n".join(lines) + "\n")


@handles("join", argument=True)
def join(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """A seat asked for: the code to confirm it mailed to the sender (and only there)."""
    words, lines = fields(command)
    game_id = words[0] if words else lines.get("game", "")
    wanted_seat, wanted_language = lines.get("seat") or None, lines.get("language") or None
    for word in words[1:]:
        if word.lower() in LANGUAGES:
            wanted_language = word.lower()
        else:
            wanted_seat = word
    if wanted_language is not None and wanted_language.lower() not in LANGUAGES:
        return _refused(_("language: write one of {codes}", codes=", ".join(LANGUAGES)))
    email = from_address.strip().lower()
    moment = clock.utc(now)
    with Session(engine) as session:
        game = session.get(LobbyGameRow, game_id) if game_id else None
        if game is None or game.status != "open":
            return _refused(_("no game of that name is open for joining: send games for the list"))
        seats = lobby.taken(session, game.id)
        if any(s.email == email for s in seats):
            return _refused(_("this address has a seat in game {game} already", game=game.id))
        if len(seats) >= game.seats:
            return _refused(_("game {game} has no free seat left", game=game.id))
        try:
            seat = lobby.seat_name(session, game, wanted_seat)
        except UserError as exc:  # it quotes the name asked for: a stranger reads the host's words only
            return replace(_refused(str(exc)), echo_free=False)
        if lobby.pending_codes(session, email, moment) >= lobby.PENDING_PER_ADDRESS:
            return _refused(_("this address has codes waiting already: send one of them back first"))
    reader = (wanted_language or current_language()).lower()

    def write(session: Session, _inbound_key: str) -> None:
        issue_code(
            session,
            settings or load_settings(),
            kind="join",
            game_id=game_id,
            email=email,
            seat=seat if wanted_seat else None,
            reader_language=reader,
            now=moment,
            words=lambda code: (
                code_subject(code, _("join game {game}", game=game_id)),
                _(
                    "Someone, perhaps you, asked to join game {game} with this address, as seat {seat}.",
                    game=game_id,
                    seat=seat,
                )
                + "\n\n"
                + _code_block(code),
            ),
        )

    # the code's mail is the answer: a forged From gets its owner one mail, the code they can ignore
    return LobbyAnswer(True, "", "", write=write)


def _code_block(code: str) -> str:
    return (
        "    "
        + code
        + "\n\n"
        + reply_line(code)
        + "\n\n"
        + _("If you did not ask for it, ignore this mail: nothing changes.")
        + "\n"
    )


@handles("leave", argument=True)
def leave(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """A seat of an open game given back: the code mailed to the address that holds it."""
    words, lines = fields(command)
    game_id = words[0] if words else lines.get("game", "")
    email = from_address.strip().lower()
    with Session(engine) as session:
        game = session.get(LobbyGameRow, game_id) if game_id else None
        held = session.exec(
            select(LobbySeatRow).where(LobbySeatRow.game_id == game_id, LobbySeatRow.email == email)
        ).first()
        if game is None or game.status != "open" or held is None:
            return _refused(
                _(
                    "this address holds no seat in an open game of that name (from a game that started: "
                    "send resign)"
                )
            )
        seat, reader = held.seat, held.language or lobby.language_of(game)
    moment = clock.utc(now)
    return _coded(
        settings, "leave", game_id, email, seat, reader, moment, lambda: _("leave game {game}", game=game_id)
    )


@handles("standby", argument=True)
def standby(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """``standby GAMETYPE``: the code to confirm it; ``standby off``: off every list at once."""
    words, lines = fields(command)
    wanted = (words[0] if words else lines.get("game", "")).lower()
    email = from_address.strip().lower()
    if wanted == "off":
        with Session(engine) as session:
            rows = session.exec(select(StandbyRow).where(StandbyRow.email == email)).all()
            for row in rows:
                session.delete(row)
            session.commit()
        return LobbyAnswer(True, _("[pbem] standby"), _("This address is on no standby list now.") + "\n")
    if wanted not in installed():
        kinds = ", ".join(sorted(installed()))
        return _refused(_("standby: write one of the games of this host: {kinds}, or off", kinds=kinds))
    with Session(engine) as session:
        if session.exec(
            select(StandbyRow.id).where(StandbyRow.game_type == wanted, StandbyRow.email == email)
        ).first():
            return LobbyAnswer(
                True,
                _("[pbem] standby"),
                _("This address is on the standby list of {game} already.", game=wanted) + "\n",
            )
        if lobby.pending_codes(session, email, clock.utc(now)) >= lobby.PENDING_PER_ADDRESS:
            return _refused(_("this address has codes waiting already: send one of them back first"))
    return _coded(
        settings,
        "standby",
        wanted,
        email,
        None,
        current_language(),
        clock.utc(now),
        lambda: _("standby for {game}", game=wanted),
    )


def _coded(
    settings: MailSettings | None,
    kind: str,
    game_id: str,
    email: str,
    seat: str | None,
    reader: str,
    now: datetime,
    what: Callable[[], str],
    note: Callable[[], str] = str,
) -> LobbyAnswer:
    """The answer to a request confirmed by a code mailed to ``email`` (none: the code's mail is the
    answer), and the code to write; ``what()`` says what was asked and ``note()`` what follows, in the
    language current where they are called."""

    def write(session: Session, _inbound_key: str) -> None:
        issue_code(
            session,
            settings or load_settings(),
            kind=kind,
            game_id=game_id,
            email=email,
            seat=seat,
            reader_language=reader,
            now=now,
            words=lambda code: (
                code_subject(code, what()),
                _("Someone, perhaps you, asked for this with this address: {what}.", what=what())
                + (("\n" + note()) if note() else "")
                + "\n\n"
                + _code_block(code),
            ),
        )

    return LobbyAnswer(True, "", "", write=write)


@handles("resign", "concede")
def resign(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """A seat of a running game given up: the seat's password checked, the code mailed to its address."""
    _words, lines = fields(command)
    envelope = {k: lines.get(k, "") for k in ("game", "player", "password")}
    moment = clock.utc(now)
    try:
        game_id, seat_name = commands._authenticate(engine, envelope, from_address, moment)
    except commands._Held:
        return Answer(False, "", "", silent=True)
    except UserError as exc:
        return Answer(False, _("[pbem] your request was not carried out"), "", errors=[str(exc)])
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).one()
        assert game is not None
        if game.status not in ("active", "paused"):
            return Answer(
                False,
                _("[pbem] your request was not carried out"),
                "",
                errors=[_("game {game} is over", game=game_id)],
            )
        email = seat.email.strip().lower()
        reader = seat.language or game.language
    if not email:
        return Answer(
            False,
            _("[pbem] your request was not carried out"),
            "",
            errors=[
                _(
                    "seat {seat} has no registered address to send the code to: ask the game master",
                    seat=seat_name,
                )
            ],
        )

    def what() -> str:
        if command.name == "resign":
            return _("resign seat {seat} of game {game}", seat=seat_name, game=game_id)
        return _("concede seat {seat} of game {game}", seat=seat_name, game=game_id)

    def note() -> str:
        if command.name == "resign":
            return ""
        return _(
            "No game of this host removes a seat that concedes: once you confirm, your seat is offered to "
            "a new player and the bot plays it meanwhile, as after resign."
        )

    coded = _coded(settings, command.name, game_id, email, seat_name, reader, moment, what, note)
    # the password proved the sender, who may write from another address than the seat's: told where
    text = _(
        "A code to confirm it is on its way to the address seat {seat} was registered with: reply to that "
        "mail from there. Nothing is done until then.",
        seat=seat_name,
    )
    if note():
        text += "\n\n" + note()
    return LobbyAnswer(
        True,
        "[pbem] " + what(),
        text + "\n",
        write=coded.write,
        game_id=game_id,
        seat=seat_name,
        echo_free=False,
    )
