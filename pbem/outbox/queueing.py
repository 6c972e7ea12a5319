"""The outbox's queueing side: a mail goes into the outbox table once per dedupe key, and the mail pass
queues each report's mail (one per seat's report, and the public one to each observer).

A mail is queued once per dedupe key (the unique constraint decides, not a check in code), so deriving
the outbox twice, or from two hosts at once, queues nothing twice. Sending is :mod:`pbem.outbox.sending`;
:mod:`pbem.outbox` names both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from email import policy
from email.generator import BytesGenerator
from email.message import EmailMessage
from functools import cache
from io import BytesIO
from typing import Any, NamedTuple, Protocol

from sqlalchemy import Connection, Engine, String, and_, bindparam, cast, exists, false, literal, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.core import fast_zlib
from pbem.core.clock import utc
from pbem.core.codec import pack_bytes_fast, pack_bytes_sharing, sha256_hex, unpack_fast
from pbem.core.errors import UserError
from pbem.core.i18n import language
from pbem.intake import addresses
from pbem.outbox.compose import report_mail, report_subject
from pbem.outbox.settings import MailSettings, load_settings
from pbem.outbox.signin import LinkSettings, link, load_links, with_link
from pbem.render.calendar import parts_for_reports
from pbem.render.reports import languages_of
from pbem.render.tables import table_slice
from pbem.storage import fencing
from pbem.storage.models import GameRow, ObserverRow, OutboxRow, ReportRow, SeatRow


def begin_write(session: Session) -> None:
    """Make the transaction a writer from its first statement.

    On SQLite a transaction that reads and then writes fails at once ("database is locked", no busy
    wait) if another writer committed in between; writing first takes the write lock up front, so
    concurrent senders and fetchers queue on the busy timeout instead. PostgreSQL needs nothing: its
    row locks and the unique constraints settle races.
    """
    if session.get_bind().dialect.name == "sqlite":
        session.connection().exec_driver_sql("UPDATE host SET value = value WHERE key = 'schema_version'")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as email.generator's NLCRE


class _WholeBodyGenerator(BytesGenerator):
    """``BytesGenerator`` writing a body's lines in one piece: the stock one writes each line and each
    line break apart (a 60 KB report page is 1,500 lines, so two thirds of serialising a report mail
    went there). The bytes are the same: every line break becomes the policy's."""

    def _write_lines(self, lines: str) -> None:
        if lines:
            self.write(_LINE_BREAK.sub(self._NL, lines))


def message_bytes(msg: EmailMessage) -> bytes:
    """``msg.as_bytes(policy=policy.SMTP)``, faster."""
    out = BytesIO()
    _WholeBodyGenerator(out, mangle_from_=False, policy=policy.SMTP).flatten(msg)
    return out.getvalue()


def pack_message(msg: EmailMessage | bytes, shared: Sequence[bytes] = ()) -> bytes:
    """A mail as the outbox stores it: packed as stored reports are (:func:`pbem.core.codec.pack_bytes_fast`,
    ISA-L). A report mail is some 80 KB, two thirds of it base64 pictures that hardly shrink; the
    stdlib's zlib at level 1 took 1.3 ms a mail over them (a host packs one per seat per turn), ISA-L
    takes 0.16 ms for the same 46 KB. The stream is an ordinary zlib one: rows packed before by the
    stdlib read the same, and any zlib reads these. ``shared``: large pieces of the mail that other
    mails hold too, packed once for all (:func:`pbem.core.codec.pack_bytes_sharing`)."""
    raw = msg if isinstance(msg, bytes) else message_bytes(msg)
    return pack_bytes_sharing(raw, shared) if shared else pack_bytes_fast(raw)


def unpack_message(blob: bytes) -> bytes:
    """The exact bytes :func:`pack_message` packed (or the stdlib's zlib, before it)."""
    return fast_zlib.decompress(blob)


def queue(
    session: Session, *, key: str, to: str, message: EmailMessage, now: datetime, game_id: str | None = None
) -> bool:
    """Add a mail to the outbox in the caller's transaction, unless one with ``key`` is there already.

    Returns whether it was added. A concurrent writer that queued the same key first makes the
    caller's commit fail on the unique constraint, which rolls the caller's whole transaction back.
    Mail of a game queued under a tick's claim raises :class:`pbem.storage.fencing.ClaimLost` when another
    tick took the game over meanwhile.
    """
    fencing.check(session, game_id)
    key = fitted_key(key)
    if session.exec(select(OutboxRow.id).where(OutboxRow.dedupe_key == key)).first() is not None:
        return False
    session.add(
        OutboxRow(
            dedupe_key=key,
            game_id=game_id,
            to_addr=to,
            subject=str(message["Subject"])[:300],
            message_z=pack_message(message),
            created_at=now,
            next_attempt_at=now,
        )
    )
    return True


#: the length of ``outbox.dedupe_key`` (PostgreSQL refuses a longer one; SQLite keeps it silently)
KEY_LENGTH = 300


def address_key(address: str) -> str:
    """An address as a dedupe key names it: a digest, so that a key fits its column whatever the
    address (one of 254 characters is valid) and no address is spelled out in a key."""
    return sha256_hex(address.strip().lower())[:40]


def fitted_key(key: str) -> str:
    """``key`` if it fits :data:`KEY_LENGTH`, else its head and a digest of the whole: every key
    builder digests what may be long, so this only keeps a key built from a value nobody bounded
    from failing on PostgreSQL and stopping the mail behind it."""
    if len(key) <= KEY_LENGTH:
        return key
    return key[: KEY_LENGTH - 65] + "#" + sha256_hex(key)


def report_key(game_id: str, epoch: int, turn: int, seat: str, observer: str | None = None) -> str:
    """``report:GAME:EPOCH:TURN:SEAT``; an observer's copy of the public report adds ``observer=`` and
    the digest of the address (:func:`address_key`)."""
    base = f"report:{game_id}:{epoch}:{turn}:{seat}"
    return base if observer is None else f"{base}observer={address_key(observer)}"


def _key_expr() -> object:
    return (
        literal("report:")
        + ReportRow.game_id
        + literal(":")
        + cast(ReportRow.epoch, String)
        + literal(":")
        + cast(ReportRow.turn, String)
        + literal(":")
        + ReportRow.seat
    )


def unmailed_reports(engine: Engine) -> list[tuple[int, str]]:
    """(report id, address) of every report mail not queued yet, oldest report first: of the reports
    no mail pass has been through (``mail_queued`` false). An observer's key holds a digest of the
    address, which SQL cannot spell on every backend: those are compared here."""
    with Session(engine) as session:
        for_seats = session.exec(
            select(ReportRow.id, SeatRow.email)
            .join(SeatRow, and_(SeatRow.game_id == ReportRow.game_id, SeatRow.name == ReportRow.seat))
            .where(ReportRow.mail_queued == false(), ReportRow.seat != "", SeatRow.email != "")
            .where(~exists().where(OutboxRow.dedupe_key == _key_expr()))
            .order_by(ReportRow.id)
        ).all()
        public = session.exec(
            select(ReportRow.id, ReportRow.game_id, ReportRow.epoch, ReportRow.turn, ObserverRow.email)
            .join(ObserverRow, ObserverRow.game_id == ReportRow.game_id)
            .where(ReportRow.mail_queued == false(), ReportRow.seat == "")
            .order_by(ReportRow.id)
        ).all()
        keys = [report_key(row.game_id, row.epoch, row.turn, "", row.email) for row in public]
        queued = set(session.exec(select(OutboxRow.dedupe_key).where(OutboxRow.dedupe_key.in_(keys))))  # type: ignore[attr-defined]
    for_observers = [(row.id, row.email) for row, key in zip(public, keys, strict=True) if key not in queued]
    return [*for_seats, *for_observers]


def enqueue_reports(
    engine: Engine,
    now: datetime | None = None,
    *,
    settings: MailSettings | None = None,
    game_id: str | None = None,
    links: LinkSettings | None = None,
) -> int:
    """Queue one mail per report not mailed yet: each seat's to its address, the public one to each
    observer; only ``game_id``'s when given. Idempotent; returns how many mails were queued.

    Only the reports with ``mail_queued`` false are read (an index finds them), one game's at a time.
    On PostgreSQL they are claimed ``FOR UPDATE SKIP LOCKED`` and their mail composed and queued in
    that transaction, so two ticks at once share the games between them. On SQLite, whose write lock
    is one for the whole database, the mail is composed between a read and a short write that queues
    only what is still unqueued then (a tick queues the games it holds, so two rarely meet).
    """
    settings = settings or load_settings()
    links = links or load_links()
    now = utc(now)
    queued = 0
    failed_on: int | None = None
    while True:
        # a Core connection, not a Session: the pass has no ORM object to track, and a Session's
        # transaction and connection bookkeeping cost more than the pass's statements
        with engine.connect() as conn:
            locking = conn.dialect.name == "postgresql"
            reports = _claim_reports(conn, game_id, lock=locking)
            if not reports:
                return queued
            # the game and its seats read once, for the addresses, the languages and the calendars
            game, seats, observed = _game_and_seats(conn, reports[0].game_id)
            wanted = _addressed(conn, reports, seats, observed)
            languages = languages_of(game, seats)  # type: ignore[arg-type]
            calendars = _calendars(conn, game, seats, wanted, now, settings)
            if not locking:
                conn.commit()  # no transaction while composing
            signin = {s.name: link(links, game.id, s.name, s.link_generation, now) for s in seats}
            mails = _compose(settings, wanted, now, languages, calendars, signin)
            try:
                # on SQLite the first statement of _store is a write: it takes the write lock
                queued += _store(conn, reports, mails)
                # every unqueued report of the game was claimed at once (on PostgreSQL less those
                # another pass holds, which it queues): with one game asked for, asking again would find
                # none; else whether any other game's report is unqueued is asked in this transaction
                # (on SQLite under the write lock, so it sees every report committed before), not in
                # a transaction of its own that finds none at the end of every pass
                more = game_id is None and conn.execute(_OLDEST).first() is not None
                conn.commit()
                if not more:
                    return queued
            except IntegrityError:  # a conflict the dedupe key's skip does not cover: once may be a race
                conn.rollback()
                if failed_on == reports[0].id:
                    raise  # twice on the same report: not a race, a fault to show
                failed_on = reports[0].id


class _Report(Protocol):
    """A report as the mail pass reads it (a row of :data:`_REPORT_COLUMNS`)."""

    id: int
    game_id: str
    epoch: int
    turn: int
    seat: str
    text_z: bytes
    html_z: bytes
    table_at: str | None


# The pass's statements, built once and run with each game's values: building and keying a statement
# cost SQLAlchemy more than SQLite took to run it (see pbem.storage.history's OF_TURN). Only the columns the
# mail needs are read, as plain rows, not ORM objects.
_R = ReportRow.__table__.c  # type: ignore[attr-defined]
_REPORT_COLUMNS = (_R.id, _R.game_id, _R.epoch, _R.turn, _R.seat, _R.text_z, _R.html_z, _R.table_at)
_UNQUEUED = _R.mail_queued == false()
#: the game of the oldest unqueued report
_OLDEST = select(_R.game_id).where(_UNQUEUED).order_by(_R.id).limit(1)
#: the unqueued reports of a game (param ``of_game``)
_OF_GAME = select(*_REPORT_COLUMNS).where(_UNQUEUED, _R.game_id == bindparam("of_game")).order_by(_R.id)
#: the unqueued reports of the game with the oldest one, in one statement (SQLite: nothing to skip)
_OF_OLDEST = (
    select(*_REPORT_COLUMNS).where(_UNQUEUED, _R.game_id == _OLDEST.scalar_subquery()).order_by(_R.id)
)
_OLDEST_LOCKED = _OLDEST.with_for_update(skip_locked=True)
_OF_GAME_LOCKED = _OF_GAME.with_for_update(skip_locked=True)
_OBSERVERS = select(ObserverRow.__table__.c.email).where(  # type: ignore[attr-defined]
    ObserverRow.__table__.c.game_id == bindparam("of_game")  # type: ignore[attr-defined]
)


def _marking(ids: object) -> Any:
    """``UPDATE`` marking the reports of ``ids`` still unqueued queued, and returning their ids: what
    this pass queues."""
    return (
        update(ReportRow.__table__)  # type: ignore[attr-defined]
        .where(_R.id.in_(ids), _UNQUEUED)  # type: ignore[arg-type]
        .values(mail_queued=True)
        .returning(_R.id)
    )


#: for any number of reports (an expanding ``IN``, which SQLAlchemy renders anew at each run)
_MARK_QUEUED = _marking(bindparam("ids", expanding=True))
#: up to this many reports (a pass's are one game's: its seats' and the public one, a turn or a few)
#: the statement has one parameter a report, and is compiled once for each count
_MARK_FIXED_UP_TO = 24


@cache
def _mark_queued(count: int) -> Any:
    """:data:`_MARK_QUEUED` for ``count`` reports, its parameters ``id0`` … (``count`` at most
    :data:`_MARK_FIXED_UP_TO`: bounded)."""
    return _marking([bindparam(f"id{at}") for at in range(count)])


def _mark(conn: Connection, ids: list[int]) -> set[int]:
    """Mark the reports of ``ids`` that are still unqueued queued; their ids."""
    if len(ids) > _MARK_FIXED_UP_TO:
        return set(conn.execute(_MARK_QUEUED, {"ids": ids}).scalars())
    return set(conn.execute(_mark_queued(len(ids)), {f"id{at}": id_ for at, id_ in enumerate(ids)}).scalars())


_O = OutboxRow.__table__  # type: ignore[attr-defined]


@cache
def _insert_new(dialect: str) -> Any:
    """``INSERT`` of outbox rows that skips a row whose dedupe key is queued already (``ON CONFLICT DO
    NOTHING``: the unique constraint decides, at the moment of writing, also against a concurrent
    writer). SQLite's ``RETURNING`` cost more than the insert of four 50 KB mails: not there."""
    if dialect == "sqlite":
        return sqlite_insert(_O).on_conflict_do_nothing(index_elements=["dedupe_key"])
    return postgresql_insert(_O).on_conflict_do_nothing(index_elements=["dedupe_key"]).returning(_O.c.id)


def _claim_reports(conn: Connection, game_id: str | None, *, lock: bool) -> list[_Report]:
    """The unqueued reports of ``game_id`` (else of the game with the oldest one); with ``lock``,
    locked for this transaction, skipping those another pass holds. Empty when none is left."""
    if game_id is None:
        if not lock:  # nothing to skip: the oldest report's game found in the same statement
            return list(conn.execute(_OF_OLDEST))  # type: ignore[arg-type]
        game_id = conn.execute(_OLDEST_LOCKED).scalar()
        if game_id is None:
            return []
    return list(conn.execute(_OF_GAME_LOCKED if lock else _OF_GAME, {"of_game": game_id}))  # type: ignore[arg-type]


class _Game(NamedTuple):
    """The columns of a game's row the mail pass reads (the calendars', the languages'): read as
    :class:`pbem.storage.models.GameRow` is, by attribute, without its state or an ORM object."""

    id: str
    game_type: str
    epoch: int
    turn: int
    status: str
    created_at: datetime
    turn_seconds: int | None
    deadline_at: datetime | None
    timezone: str
    language: str


class _Seat(NamedTuple):
    """The columns of a seat's row the mail pass reads (:class:`pbem.storage.models.SeatRow`'s names)."""

    name: str
    email: str
    language: str | None
    timezone: str | None
    link_generation: int


_G = GameRow.__table__.c  # type: ignore[attr-defined]
_S = SeatRow.__table__.c  # type: ignore[attr-defined]
_GAME_COLUMNS = tuple(_G[name] for name in _Game._fields)
_OB = ObserverRow.__table__.c  # type: ignore[attr-defined]
#: a game's columns and its seats', one row a seat in seat order (one row of empty seat columns for a
#: game without seats), and last whether the game has observers: one Core statement where an ORM load
#: of the game (its state with it) and one of its seats were two, and the observers' addresses are
#: asked for only when there are some (most games have none, and every turn has a public report)
_GAME_AND_SEATS = (
    select(
        *_GAME_COLUMNS,
        *(_S[name].label(f"seat_{name}") for name in _Seat._fields),
        exists().where(_OB.game_id == _G.id).label("observed"),
    )
    .select_from(GameRow.__table__.outerjoin(SeatRow.__table__, _S.game_id == _G.id))  # type: ignore[attr-defined]
    .where(_G.id == bindparam("of_game"))
    .order_by(_S.position)
)


def _game_and_seats(conn: Connection, game_id: str) -> tuple[_Game, list[_Seat], bool]:
    """The game's columns, its seats' in seat order, and whether it has observers."""
    rows = conn.execute(_GAME_AND_SEATS, {"of_game": game_id}).all()  # type: ignore[arg-type]
    if not rows:
        raise UserError(f"there is no game {game_id!r}")  # as pbem.storage.history.game_row says it
    width = len(_Game._fields)
    seats = [_Seat(*row[width:-1]) for row in rows if row[width] is not None]
    return _Game(*rows[0][:width]), seats, bool(rows[0][-1])


def _addressed(
    conn: Connection, reports: list[_Report], seats: list[_Seat], observed: bool = True
) -> list[tuple[_Report, str, str]]:
    """(report, dedupe key, address) of every mail one game's ``reports`` owe its ``seats`` and
    observers (``observed``: whether the game has any, else they are not asked for). Those queued
    already (a report whose mail is in the outbox but not marked queued: a row from before
    ``mail_queued``) are composed all the same and skipped by the dedupe key when stored: asking the
    outbox first cost a statement every pass for a case that hardly comes."""
    game_id = reports[0].game_id
    emails = {seat.name: seat.email for seat in seats}
    observers: list[str] = []
    if observed and any(r.seat == "" for r in reports):
        observers = list(conn.execute(_OBSERVERS, {"of_game": game_id}).scalars())
    wanted: list[tuple[_Report, str, str]] = []
    for row in reports:
        targets = [emails.get(row.seat, "")] if row.seat else observers
        for email in targets:
            address = email.strip().lower()
            if not address or not addresses.is_valid(address):
                continue  # no address, or a broken one: nothing to send to, nothing to crash on
            key = report_key(row.game_id, row.epoch, row.turn, row.seat, None if row.seat else address)
            wanted.append((row, key, address))
    return wanted


def _calendars(
    conn: Connection,
    game: _Game,
    seats: list[_Seat],
    wanted: list[tuple[_Report, str, str]],
    now: datetime,
    settings: MailSettings,
) -> dict[int, list[str]]:
    """Each seat's report's calendar parts (its resolved turn's deadline cancelled, the next one set)."""
    reports = {row.id: (row.id, row.seat, row.turn) for row, _key, _address in wanted if row.seat}
    organizer = settings.from_addr or "pbem@localhost"
    # (the game's and seats' rows given, nothing is read: no session wanted)
    return parts_for_reports(None, game.id, list(reports.values()), now, organizer, game=game, seats=seats)  # type: ignore[arg-type]


def _compose(
    settings: MailSettings,
    wanted: list[tuple[_Report, str, str]],
    now: datetime,
    languages: dict[str, str] | None = None,
    calendars: dict[int, list[str]] | None = None,
    signin: dict[str, str | None] | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """(report id, outbox row) of each mail, composed and packed, each in its reader's language
    (``languages``: seat, or ``""`` for the public report's observers; the report is in it already)."""
    mails = []
    texts: dict[int, tuple[str, str]] = {}
    for row, key, address in wanted:
        if row.id not in texts:
            texts[row.id] = (unpack_fast(row.text_z), unpack_fast(row.html_z))
        text, html = texts[row.id]
        shared: list[bytes] = []
        with language((languages or {}).get(row.seat)):
            # a seat's own mail carries its sign-in link (none without a web host); the public one none
            text, html = with_link(text, html, (signin or {}).get(row.seat) if row.seat else None)
            raw = report_mail(
                settings,
                to=address,
                key=key,
                game_id=row.game_id,
                turn=row.turn,
                seat=row.seat,
                text=text,
                html=html,
                table=table_slice(row.table_at),
                now=now,
                calendars=(calendars or {}).get(row.id, ()),
                shared=shared,
            )
            subject = report_subject(row.game_id, row.turn, row.seat, text=text)
        outbox_row = {
            "dedupe_key": key,
            "game_id": row.game_id,
            "to_addr": address,
            "subject": subject[:300],
            "message_z": pack_message(raw, shared),
            "created_at": now,
            "status": "pending",
            "attempts": 0,
            "next_attempt_at": now,
        }
        mails.append((row.id, outbox_row))
    return mails


def _store(conn: Connection, reports: list[_Report], mails: list[tuple[int, dict[str, Any]]]) -> int:
    """Queue ``mails`` and mark ``reports`` queued, in the caller's transaction: only the reports still
    unqueued now, and only mails not queued meanwhile (the dedupe key decides). Under a tick's claim on
    the game that another tick took over, nothing (:class:`pbem.storage.fencing.ClaimLost`).

    The first statement writes (marking the reports), so on SQLite it takes the write lock before
    anything is read; three statements in all, whatever the number of mails."""
    still = _mark(conn, [row.id for row in reports])
    for game in sorted({row.game_id for row in reports}):
        fencing.check(conn, game)
    rows = [mail for report_id, mail in mails if report_id in still]
    if not rows:
        return 0
    written = conn.execute(_insert_new(conn.dialect.name), rows)
    # sqlite3's executemany counts the rows it wrote (a skipped one none); psycopg's does not, so there
    # the statement returns their ids
    return int(written.rowcount) if conn.dialect.name == "sqlite" else len(written.all())
