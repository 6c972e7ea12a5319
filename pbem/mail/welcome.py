"""The welcome: the first mail a seat gets, with everything needed to play by mail.

``pbem new``, ``pbem import`` and ``pbem replace`` queue one to each seat with an address: the game,
the seats (names only: nobody's address), the seat's password, how to play by mail in five lines, the
seat's latest report with its template filled in (password and all), or whom the game waits for. It is
the root of the seat's thread: its Message-ID is the one every later mail refers to.

The seat's report of that turn is then marked mailed: the welcome holds it, a second mail would repeat
it. A welcome carries a secret, so it goes to the seat's registered address only, and once delivered
the outbox keeps its headers alone (:func:`pbem.outbox.forget_secrets`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.core.codec import sha256_hex, unpack
from pbem.core.dice import report_data
from pbem.core.errors import UserError
from pbem.core.i18n import _, language
from pbem.intake import addresses
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.outbox import begin_write, queue, signin
from pbem.outbox.message import header_fields, new_message, set_text, subject_line, thread_root
from pbem.outbox.settings import MailSettings, load_settings
from pbem.render.reports import reader_languages
from pbem.storage.history import current_state, game_of
from pbem.storage.models import GameRow, ReportRow, SeatRow


def welcome_key(game_id: str, seat: SeatRow) -> str:
    """``welcome:GAME:SEAT:…``: one welcome per password issued (a replaced seat gets a new one)."""
    return f"welcome:{game_id}:{seat.name}:{sha256_hex(seat.password_hash)[:16]}"


def how_to_play() -> str:
    """How to play by mail, in five lines."""
    return "\n".join(
        [
            _("1. Every report ends with your order template, between two marker lines."),
            _("2. Reply with the template filled in: what lies outside the markers is not read."),
            _("3. Every mail is answered: accepted (with a receipt), or what to correct."),
            _('4. A mail whose subject is "report", "template" or "help" gets just that.'),
            _('5. Lost your password? Send "password" with the lines game: and player:.'),
        ]
    )


def queue_welcomes(
    engine: Engine,
    game_id: str,
    issued: dict[str, str],
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
    replaced: bool = False,
    links: signin.LinkSettings | None = None,
) -> list[str]:
    """Queue the welcome of each seat in ``issued`` (seat → its new password) that has an address;
    the seats welcomed. Idempotent: a second call queues nothing (one welcome per password).
    ``replaced``: the seat changed hands mid-game, so the thread exists already."""
    with Session(engine) as session:
        begin_write(session)
        welcomed = queue_welcomes_in(
            session,
            game_id,
            issued,
            settings=settings or load_settings(),
            now=utc(now),
            replaced=replaced,
            links=links,
        )
        session.commit()
    return welcomed


def queue_welcomes_in(
    session: Session,
    game_id: str,
    issued: dict[str, str],
    *,
    settings: MailSettings,
    now: datetime,
    replaced: bool = False,
    links: signin.LinkSettings | None = None,
) -> list[str]:
    """:func:`queue_welcomes` in the caller's transaction (a game that starts, a seat that changes
    hands: the passwords and their welcomes are written together, or neither is)."""
    game = session.get(GameRow, game_id)
    if game is None:
        raise UserError(f"there is no game {game_id!r}")
    seats = list(session.exec(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.position)))
    languages = reader_languages(session, game_id)
    reports = {
        r.seat: r
        for r in session.exec(
            select(ReportRow).where(
                ReportRow.game_id == game_id, ReportRow.epoch == game.epoch, ReportRow.turn == game.turn
            )
        )
    }
    gm = game_of(game)
    waiting = sorted(gm.pending(current_state(gm, game)))
    names = [s.name for s in seats]
    welcomed: list[str] = []
    links = links or signin.load_links()
    for seat in seats:
        address = seat.email.strip().lower()
        if seat.name not in issued or not addresses.is_valid(address):
            continue
        with language(languages.get(seat.name)):  # the seat's words, its mail's Content-Language
            report = reports.get(seat.name)
            url = signin.link(links, game_id, seat.name, seat.link_generation, now)
            text = _body(gm.title, game, seat.name, names, issued[seat.name], report, waiting, url)
            key = welcome_key(game_id, seat)
            root = thread_root(settings, game_id, seat.name)
            message = new_message(
                header_fields(
                    settings,
                    to=address,
                    subject=subject_line(game_id, _("welcome, {seat}", seat=seat.name)),
                    key=key,
                    now=now,
                    thread=root,
                    message_id=None if replaced else root,
                )
            )
            set_text(message, text)
        if queue(session, key=key, to=address, message=message, now=now, game_id=game_id):
            welcomed.append(seat.name)
            if report is not None and not report.mail_queued:
                report.mail_queued = True  # the welcome holds this report
                session.add(report)
    return welcomed


def _dice_lines(game: GameRow) -> list[str]:
    """The dice commitment, and what it is for: the seed stays secret until the game ends, then
    ``pbem verify`` checks it against this line. None for a game from before committed dice."""
    dice = report_data(game.dice, game.seed, over=False)
    if dice is None:
        return []
    return [
        _("Commitment to the draws (SHA-256 of the game's secret seed):"),
        "  " + dice["commitment"],
        _(
            "It fixes every draw now, before anyone knows them: the seed is revealed in the final report, "
            "and pbem verify on the game's archive checks it against this line and re-derives every draw."
        ),
        "",
    ]


def _body(
    title: str,
    game: GameRow,
    seat: str,
    names: list[str],
    password: str,
    report: ReportRow | None,
    waiting: list[str],
    url: str | None = None,
) -> str:
    lines = [
        _("Welcome to {title}, game {game}. You play the seat {seat}.", title=title, game=game.id, seat=seat),
        _("The seats, in playing order: {seats}.", seats=", ".join(names)),
        "",
        _("Your password: {password}", password=password),
        _("It goes into every order mail; keep it to yourself. The host keeps only a hash of it."),
        "",
        *([*signin.link_lines(url), ""] if url else []),
        _("How to play by mail:"),
        how_to_play(),
        *_press_line(game),
        "",
        *_dice_lines(game),
    ]
    if seat in waiting and report is not None:
        lines += [
            _("Your report follows; its template at the end has your password filled in already."),
            "",
            unpack(report.text_z).replace(f"password: {PASSWORD_PLACEHOLDER}", f"password: {password}"),
        ]
    else:
        others = [w for w in waiting if w != seat]
        if others:
            lines.append(
                _("Nothing is asked of you yet: the game waits for {seats}.", seats=", ".join(others))
            )
        else:
            lines.append(_("Nothing is asked of you now."))
        if report is not None:
            lines += [_("Your report of turn {turn} follows.", turn=report.turn), "", unpack(report.text_z)]
        else:
            lines.append(_("Your first report comes by mail as soon as the game has one for you."))
    return "\n".join(lines).rstrip("\n") + "\n"


def _press_line(game: GameRow) -> list[str]:
    """How to write the other players, when the game takes press (issue 14)."""
    if game.press == "public":
        return [
            _(
                'To write every player: send "press", the lines game:, player:, password: and to: all, '
                "then your message. The host signs it with your seat and shows no address."
            )
        ]
    if game.press == "private":
        return [
            _(
                'To write the other players: send "press", the lines game:, player:, password: and to: all '
                "(or to: the seats you choose), then your message. The host signs it with your seat and "
                "shows no address."
            )
        ]
    return []
