"""Notices wherever the player is (issue 32): besides mail, a seat may name notice URLs (apprise URLs:
Discord, Matrix, Telegram, ntfy, Slack, ``json://`` …) that are told "your move", reminders and "the
game ended".

The same discipline as the mail outbox: a notice is a ``push`` row with a unique key, queued in the
transaction of the event it tells of (the turn's, the reminder's), once however often that is tried
(``INSERT … ON CONFLICT DO NOTHING``, so the event's own transaction never fails on it), and sent by the
tick's send step (:func:`send`).

Sending: a row is marked ``sending`` in a committed transaction before it is handed to its target, and
``sent`` once the target took it. A webhook cannot be asked whether it got a notice, nor told to ignore a
second one, so a notice a dead sender left ``sending`` is not sent again: it becomes ``unsure`` and the
operator is told. A second "your move" in a player's chat costs more trust than the rare notice lost
while it was in flight, and the turn's report mail, which says the same and more, goes out by the mail
outbox anyway. A target that refused is tried again later, up to :data:`MAX_ATTEMPTS` times.

A notice carries no secret: it says the turn is ready and by when; the report stays in the mail. The
URLs hold the targets' tokens: they are secrets like passwords, never logged, put in an error, a
report or an archive; a refusal names only the URL's scheme.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import apprise
from sqlalchemy import Engine, and_, delete, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from pbem.core import zones
from pbem.core.clock import utc
from pbem.core.codec import sha256_hex
from pbem.core.errors import UserError
from pbem.core.i18n import _, language
from pbem.storage.models import GameRow, NoticeTargetRow, PushRow, SeatRow

log = logging.getLogger("pbem.notices")

#: what a seat is told of: a turn waits for its orders, its deadline is near, the game is over
KINDS = ("move", "reminder", "ended")
#: tries of a notice its target refused, before it is left ``failed`` for a person to look at
MAX_ATTEMPTS = 5
#: the wait after a refusal, doubling
RETRY_SECONDS = 300
#: how long a sender owns a notice it is handing over; a ``sending`` one older than this is a dead
#: sender's, and ``unsure``
CLAIM_SECONDS = 600
#: the most notice URLs one seat may name in one game
MAX_TARGETS = 5
#: the longest notice URL taken (a Matrix or Telegram URL with its token is some 200 characters)
MAX_URL = 2000


def check_url(url: str) -> str:
    """``url`` stripped, if apprise knows it as a notice target; else a :class:`UserError` naming its
    scheme only (the rest may be a token)."""
    text = url.strip()
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if not scheme or len(text) > MAX_URL or any(ch.isspace() for ch in text):
        raise UserError(
            _(
                "notify: give one notice URL, as `apprise` writes them, e.g. {example}",
                example="ntfys://ntfy.sh/my-topic",
            )
        )
    with _quiet():
        found = apprise.Apprise.instantiate(text, suppress_exceptions=True)
    if found is None:
        raise UserError(
            _(
                "notify: a URL beginning with {scheme}:// is not a notice target this host can send to "
                "(or a part of it is missing); see the `apprise` URLs, e.g. {example}",
                scheme=scheme[:20],
                example="ntfys://ntfy.sh/my-topic",
            )
        )
    return text


def add_target(session: Session, game_id: str, seat: str, url: str, now: datetime) -> bool:
    """Name ``url`` (checked) for the seat; ``False`` when the seat had named it already."""
    digest = sha256_hex(url)
    targets = session.exec(
        select(NoticeTargetRow.url_sha256).where(
            NoticeTargetRow.game_id == game_id, NoticeTargetRow.seat == seat
        )
    ).all()
    if digest in targets:
        return False
    if len(targets) >= MAX_TARGETS:
        raise UserError(
            _(
                "notify: the most notice URLs a seat may name: {n}; write `notify: off` to drop them all "
                "first",
                n=MAX_TARGETS,
            )
        )
    session.add(NoticeTargetRow(game_id=game_id, seat=seat, url=url, url_sha256=digest, created_at=now))
    return True


def drop_targets(session: Session, game_id: str, seat: str) -> int:
    """Forget every notice URL of the seat (its notices not sent yet go with them); how many."""
    ids = session.exec(
        select(NoticeTargetRow.id).where(NoticeTargetRow.game_id == game_id, NoticeTargetRow.seat == seat)
    ).all()
    if ids:
        session.exec(delete(PushRow).where(PushRow.target_id.in_(ids)))  # type: ignore[call-overload, attr-defined]
        session.exec(delete(NoticeTargetRow).where(NoticeTargetRow.id.in_(ids)))  # type: ignore[call-overload, union-attr]
    return len(ids)


def targets_of(session: Session, game_id: str, seat: str) -> int:
    return len(
        session.exec(
            select(NoticeTargetRow.id).where(NoticeTargetRow.game_id == game_id, NoticeTargetRow.seat == seat)
        ).all()
    )


def push_key(kind: str, game_id: str, epoch: int, turn: int, seat: str, target_id: int) -> str:
    return f"push:{kind}:{game_id}:{epoch}:{turn}:{seat}:{target_id}"


@dataclass(frozen=True)
class Event:
    """What a notice tells: ``kind`` (:data:`KINDS`) of ``turn`` (the turn due; for ``ended`` the last)."""

    kind: str
    game_id: str
    epoch: int
    turn: int
    deadline_at: datetime | None = None


def words(event: Event, tz: str | None) -> tuple[str, str]:
    """The notice's title and text in the current language: no report, no secret."""
    deadline = zones.show(event.deadline_at, tz) if event.deadline_at is not None else None
    if event.kind == "ended":
        title = _("[pbem {game}] the game is over", game=event.game_id)
        text = _("Game {game} is over. The final report is in your mail.", game=event.game_id)
    elif event.kind == "reminder":
        title = _("[pbem {game}] reminder: turn {turn}", game=event.game_id, turn=event.turn)
        text = _(
            "Your orders for turn {turn} of {game} are still missing; they are due by {deadline}.",
            turn=event.turn,
            game=event.game_id,
            deadline=deadline or "-",
        )
    else:
        title = _("[pbem {game}] turn {turn}: your move", game=event.game_id, turn=event.turn)
        text = (
            _(
                "Turn {turn} of {game} waits for your orders, due by {deadline}. The report is in your mail.",
                turn=event.turn,
                game=event.game_id,
                deadline=deadline,
            )
            if deadline
            else _(
                "Turn {turn} of {game} waits for your orders. The report is in your mail.",
                turn=event.turn,
                game=event.game_id,
            )
        )
    return title, text


def queue(session: Session, event: Event, seats: tuple[str, ...] | list[str], now: datetime) -> int:
    """Queue the event's notice for every notice URL of ``seats``, in the session's transaction, each
    once by its key; how many rows this call added. One query when no seat named any (most games)."""
    found = session.exec(
        select(
            NoticeTargetRow.id, NoticeTargetRow.seat, SeatRow.language, SeatRow.timezone, SeatRow.abandoned
        )
        .join(SeatRow, and_(SeatRow.game_id == NoticeTargetRow.game_id, SeatRow.name == NoticeTargetRow.seat))  # type: ignore[arg-type]
        .where(NoticeTargetRow.game_id == event.game_id, NoticeTargetRow.seat.in_(list(seats)))  # type: ignore[attr-defined]
        .order_by(NoticeTargetRow.id)  # type: ignore[arg-type]
    ).all()
    if not found:
        return 0
    game = session.get(GameRow, event.game_id)
    fallback, zone = (game.language, game.timezone) if game is not None else ("en", "UTC")
    table = PushRow.__table__  # type: ignore[attr-defined]
    dialect = session.connection().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    added = 0
    for target_id, seat, seat_language, seat_zone, abandoned in found:
        if abandoned and event.kind != "ended":  # the stand-in plays it: nothing for the player to do
            continue
        with language(seat_language or fallback):
            title, text = words(event, seat_zone or zone)
        statement = (
            insert(table)
            .values(
                dedupe_key=push_key(event.kind, event.game_id, event.epoch, event.turn, seat, target_id),
                game_id=event.game_id,
                target_id=target_id,
                title=title[:300],
                body=text,
                created_at=now,
                status="pending",
                attempts=0,
            )
            .on_conflict_do_nothing(index_elements=["dedupe_key"])
        )
        added += session.connection().execute(statement).rowcount or 0
    return added


def queue_turn(session: Session, row: Any, waiting: tuple[str, ...], now: datetime) -> int:
    """In a turn's transaction: "your move" to the seats the next turn waits for, or "the game ended"
    to every seat once it is over. ``row``: the game as the turn left it."""
    if row.status == "finished":
        seats = session.exec(select(SeatRow.name).where(SeatRow.game_id == row.id)).all()
        return queue(session, Event("ended", row.id, row.epoch, row.turn), list(seats), now)
    return queue(session, Event("move", row.id, row.epoch, row.turn + 1, row.deadline_at), waiting, now)


def after_turn(session: Session, row: Any, _number: int, waiting: tuple[str, ...]) -> None:
    """:func:`queue_turn` as :func:`pbem.play.turns.process` calls back inside each turn's transaction:
    what ``pbem process`` and a solo game's turn on the web pass it, so their turns notify as the tick's
    do."""
    queue_turn(session, row, waiting, utc())


@contextmanager
def _quiet() -> Iterator[None]:
    """apprise logs the URLs it sends to, tokens and all: nothing of it reaches the host's logs."""
    logger = logging.getLogger("apprise")
    was = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(was)


@dataclass
class Sent:
    sent: list[int] = field(default_factory=list)
    delayed: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    unsure: list[int] = field(default_factory=list)


_P = PushRow.__table__  # type: ignore[attr-defined]


def send(
    engine: Engine,
    now: datetime | None = None,
    *,
    deliver: Callable[[str, str, str], bool] | None = None,
    after_delivery: Callable[[int], None] | None = None,
    limit: int = 200,
) -> Sent:
    """Send every notice due, each at most once (see the module). ``deliver(url, title, text)`` (default:
    apprise) says whether the target took it; ``after_delivery`` is called between a delivery and its
    mark (the crash tests stop the process there)."""
    moment = utc(now)
    done = Sent()
    deliver = deliver or _deliver
    done.unsure += _give_up_on_dead_senders(engine, moment)
    with Session(engine) as session:
        due = session.exec(
            select(PushRow.id)
            .where(
                PushRow.status == "pending",
                or_(PushRow.next_attempt_at == None, PushRow.next_attempt_at <= moment),  # type: ignore[arg-type, operator]  # noqa: E711
            )
            .order_by(PushRow.id)  # type: ignore[arg-type]
            .limit(limit)
        ).all()
    for push_id in due:
        claimed = _claim(engine, push_id, moment)
        if claimed is None:
            continue  # another sender has it
        url, title, text, attempts = claimed
        ok = deliver(url, title, text)
        if after_delivery is not None:
            after_delivery(push_id)
        with engine.begin() as conn:
            if ok:
                conn.execute(
                    update(_P)
                    .where(_P.c.id == push_id)
                    .values(status="sent", sent_at=moment, next_attempt_at=None, last_error=None)
                )
                done.sent.append(push_id)
            elif attempts >= MAX_ATTEMPTS:
                conn.execute(
                    update(_P)
                    .where(_P.c.id == push_id)
                    .values(
                        status="failed",
                        next_attempt_at=None,
                        last_error="the target refused it or could not be reached",
                    )
                )
                done.failed.append(push_id)
            else:
                wait = timedelta(seconds=RETRY_SECONDS * 2 ** (attempts - 1))
                conn.execute(
                    update(_P)
                    .where(_P.c.id == push_id)
                    .values(
                        status="pending",
                        next_attempt_at=moment + wait,
                        last_error="the target refused it or could not be reached",
                    )
                )
                done.delayed.append(push_id)
    if done.failed or done.unsure:
        log.warning(
            "notices: %d failed, %d unsure (a sender died while sending them)",
            len(done.failed),
            len(done.unsure),
        )
    return done


def _claim(engine: Engine, push_id: int, now: datetime) -> tuple[str, str, str, int] | None:
    """Mark the notice ``sending`` (compare-and-set on ``pending``) and commit, before it is handed
    over; what to send, or ``None`` when another sender took it first."""
    with engine.begin() as conn:
        taken = conn.execute(
            update(_P)
            .where(_P.c.id == push_id, _P.c.status == "pending")
            .values(
                status="sending",
                attempts=_P.c.attempts + 1,
                next_attempt_at=now + timedelta(seconds=CLAIM_SECONDS),
            )
        )
        if taken.rowcount != 1:
            return None
        row = conn.execute(
            select(NoticeTargetRow.url, PushRow.title, PushRow.body, PushRow.attempts)
            .join(NoticeTargetRow, NoticeTargetRow.id == PushRow.target_id)  # type: ignore[arg-type]
            .where(PushRow.id == push_id)
        ).one()
    return row[0], row[1], row[2], row[3]


def _give_up_on_dead_senders(engine: Engine, now: datetime) -> list[int]:
    """Notices a sender marked ``sending`` and never marked after, past its claim: it died in between,
    and nobody can tell whether the target got them. ``unsure``, not sent again (see the module)."""
    with engine.begin() as conn:
        stale = list(
            conn.execute(
                select(_P.c.id).where(_P.c.status == "sending", _P.c.next_attempt_at <= now)
            ).scalars()
        )
        if stale:
            conn.execute(
                update(_P)
                .where(_P.c.id.in_(stale), _P.c.status == "sending")
                .values(status="unsure", next_attempt_at=None, last_error="a sender stopped while sending it")
            )
    return stale


def _deliver(url: str, title: str, text: str) -> bool:
    """Hand one notice to apprise; whether its target took it. Nothing apprise says is kept (it may
    name the URL)."""
    sender = apprise.Apprise()
    with _quiet():
        if not sender.add(url):
            return False
        try:
            return bool(sender.notify(body=text, title=title))
        except Exception:  # a plugin's own failure: the target did not take it
            return False
