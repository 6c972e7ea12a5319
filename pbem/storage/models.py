"""The stored history of every game.

One row per game, seat, resolved turn, order submission, report, mail in and mail out. The turn rows are
the truth a replay checks; ``GameRow.state`` is a cache of the latest turn's state, so that processing
turn 2,000 costs what turn 20 does.

Compressed columns (``*_z``) hold zlib-compressed canonical JSON or text: see :mod:`pbem.core.codec`.

Uniqueness is enforced by the database, not only by checks in code: a turn can be recorded once per
(game, epoch, number), a mail once per dedupe key, an inbound message once per key. Two hosts racing
lose on the constraint, and roll back whole.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Text,
    UniqueConstraint,
    false,
)
from sqlmodel import Field, SQLModel

#: a 64-bit integer (revision 0005). SQLite stores every INTEGER in up to 8 bytes, and its INTEGER
#: PRIMARY KEY is the 64-bit rowid (a BIGINT key would be no rowid and lose its autoincrement): there it
#: stays INTEGER.
Int64 = BigInteger().with_variant(Integer(), "sqlite")


#: the largest value of a plain ``int`` column (``INTEGER``: 32-bit on PostgreSQL); what a file brings in
#: (an archive's turn numbers, epochs, misses) is checked against it, not left to the database to refuse
MAX_INT = 2**31 - 1
#: the largest value of an :data:`Int64` column (a seed, a duration)
MAX_INT64 = 2**63 - 1


def _id64() -> Column:  # type: ignore[type-arg]
    return Column(Int64, primary_key=True, autoincrement=True)


class GameRow(SQLModel, table=True):
    """A game. ``turn`` is the number of the latest resolved turn (0 = the state setup produced);
    orders are due for ``turn + 1``. ``epoch`` grows by one at each rollback, so turns undone by a
    rollback stay in the archive beside the new ones."""

    __tablename__ = "game"

    id: str = Field(primary_key=True, max_length=64)
    game_type: str = Field(index=True, max_length=64)
    engine_version: str = Field(max_length=32)
    # secret while the game runs: it determines every future draw. 64-bit: a seed is drawn below 2**63.
    seed: int = Field(sa_column=Column(Int64, nullable=False))
    options_json: str = "{}"
    created_at: datetime
    status: str = Field(default="active", index=True, max_length=16)  # active | paused | finished
    turn: int = 0
    epoch: int = 0
    state_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # latest state, compressed
    state_sha256: str = Field(max_length=64)
    # deadlines and missed orders (issue 7)
    # duration of one turn (None: no deadline) and the grace after it; 64-bit like every duration a
    # game master types, so a long one is refused by the host's own check, not the database's
    turn_seconds: int | None = Field(default=None, sa_column=Column(Int64, nullable=True))
    grace_seconds: int = Field(default=0, sa_column=Column(Int64, nullable=False))
    deadline_at: datetime | None = Field(default=None, index=True)
    nmr: str = Field(default="wait", max_length=16)  # wait | bot | bot:LEVEL (plain bot: easy)
    abandon_after: int | None = None  # misses after which a seat is abandoned
    require_from_match: bool = False  # mail: From must match the seat's address
    finished_at: datetime | None = None
    # a host that claimed this game for processing, until when (tick on PostgreSQL uses row locks too)
    claimed_by: str | None = Field(default=None, max_length=128)
    claimed_until: datetime | None = None
    #: raised by one at every claim: what a tick writes under its claim checks it still holds this one
    #: (pbem.host.claims), so a tick that outlived its lease writes nothing (issue 20)
    claim_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # the language of the public report (observers) and of every seat that chose none (issue 15)
    language: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})

    # issue 17: the dice derivation (1: games from before committed dice; see pbem.core.dice), the game's
    # time zone (IANA), and what happens while a seat is away (bot | extend) and for how many days at most
    dice: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    timezone: str = Field(default="UTC", max_length=64, sa_column_kwargs={"server_default": "UTC"})
    absence: str = Field(default="extend", max_length=16, sa_column_kwargs={"server_default": "extend"})
    absence_days: int = Field(default=14, sa_column_kwargs={"server_default": "14"})
    # issue 14: what players may write each other through the host (pbem.mail.press): none | public
    # (to every seat at once) | private (to all, or to chosen seats) (migration 0011)
    press: str = Field(default="private", max_length=16, sa_column_kwargs={"server_default": "private"})


class GameOriginRow(SQLModel, table=True):
    """A game that was recorded elsewhere and brought in by ``pbem import`` of a record: a table of its
    own, so that the game table keeps its columns. ``has_seed`` false: the record gave no seed, so the
    game has none (``game.seed`` then holds 0, which nothing reads) and its draws are the record's."""

    __tablename__ = "game_origin"

    game_id: str = Field(foreign_key="game.id", primary_key=True, max_length=64)
    recorded_elsewhere: bool = True
    has_seed: bool = True


class SeatRow(SQLModel, table=True):
    """A player's chair at one game. ``password_hash`` is ``scrypt$n=…,r=…,p=…$<salt hex>$<hash hex>``
    (see ``pbem.intake.passwords``)."""

    __tablename__ = "seat"
    __table_args__ = (UniqueConstraint("game_id", "name"), UniqueConstraint("game_id", "position"))

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    name: str = Field(max_length=32)
    position: int
    email: str = Field(default="", max_length=320)
    password_hash: str = Field(max_length=256)
    misses: int = 0
    abandoned: bool = False
    language: str | None = Field(default=None, max_length=8)  # None: the game's (issue 15)
    # issue 17: the seat's own time zone (None: the game's), its time away (until the end of the
    # day it named, in its zone; UTC here) and the days of absence it has used
    timezone: str | None = Field(default=None, max_length=64)
    away_until: datetime | None = None
    away_days_used: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # a password a "password" mail sent to the seat's address, in force once first used (migration 0008)
    pending_password_hash: str | None = Field(default=None, max_length=256)
    password_reset_at: datetime | None = None
    bounces: int = Field(default=0, sa_column_kwargs={"server_default": "0"})  # in a row (migration 0008)
    #: raised by a password reset or a ``replace``: sign-in links and web sessions made for an older
    #: generation no longer sign in (issue 30, migration 0015)
    link_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # a seat the stand-in plays from the start, or since a game master gave it to one, at this level
    # (easy | normal | strong: pbem.core.search.LEVELS); None: a player's (migration 0016)
    bot_level: str | None = Field(default=None, max_length=8)


class ObserverRow(SQLModel, table=True):
    """Someone who receives the public report of a game."""

    __tablename__ = "observer"
    __table_args__ = (UniqueConstraint("game_id", "email"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    email: str = Field(max_length=320)


class GameMasterRow(SQLModel, table=True):
    """A game's game master by mail (issue 14): the address the commands must come from and the
    password they must carry, stored hashed like a seat's (``pbem.intake.passwords``). A table of its own:
    most games have none, and the game table keeps its columns."""

    __tablename__ = "game_master"

    game_id: str = Field(foreign_key="game.id", primary_key=True, max_length=64)
    email: str = Field(max_length=320)
    password_hash: str = Field(max_length=256)


class PressRow(SQLModel, table=True):
    """One press message a seat wrote through the host (issue 14): to every seat (``to_all``, public
    press) or to the seats in ``recipients_json``. Private press is the sender's and its readers' hidden
    information while the game runs; the archive shows it once the game is over. ``key`` comes from the
    inbound mail, so one mail makes its press once (migration 0011)."""

    __tablename__ = "press"

    id: int | None = Field(default=None, sa_column=_id64())
    key: str = Field(unique=True, max_length=300)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    epoch: int = 0
    turn: int  # the turn being played when it was sent (orders were due for it)
    sender: str = Field(max_length=32)
    to_all: bool = False
    recipients_json: str = "[]"  # the seats it went to, in seating order
    sent_at: datetime = Field(index=True)
    text: str = Field(sa_column=Column(Text, nullable=False))


class TurnRow(SQLModel, table=True):
    """One resolved turn: the state after it, its hash, what happened and the chance outcomes drawn.

    Number 0 is the setup. ``orders_json`` maps seat to canonical orders (no passwords), with
    ``by_bot`` naming seats whose orders the bot made under the missed-orders policy.
    ``undone`` marks turns taken back by a rollback (kept for the archive).
    """

    __tablename__ = "turn"
    __table_args__ = (UniqueConstraint("game_id", "epoch", "number"),)

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    epoch: int = 0
    number: int
    state_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    state_sha256: str = Field(max_length=64)
    orders_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # {seat: orders}
    by_bot_json: str = "[]"
    events_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # [{text, to, data}]
    chance_json: str = "[]"  # [[label, n, outcome], ...]
    resolved_at: datetime
    undone: bool = False


class SubmissionRow(SQLModel, table=True):
    """An order file as received (password redacted), what it parsed to, and its fate.

    ``status``: accepted (waiting for the turn) · superseded (a later one replaced it) · consumed (the
    turn resolved with it) · rejected (``errors`` says why). Rejected submissions whose envelope did
    not name a known game and seat have ``game_id``/``seat`` empty.
    """

    __tablename__ = "submission"
    __table_args__ = (Index("ix_submission_turn", "game_id", "epoch", "turn", "status"),)

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str | None = Field(default=None, index=True, max_length=64)
    seat: str | None = Field(default=None, max_length=32)
    epoch: int | None = None
    turn: int | None = None
    received_at: datetime
    source: str = Field(default="file", max_length=16)  # file | mail | bot | cli
    from_address: str | None = Field(default=None, max_length=320)
    raw_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    orders_json: str | None = None  # canonical JSON of the validated orders
    receipt: str | None = Field(default=None, max_length=64)  # SHA-256 of orders_json
    status: str = Field(index=True, max_length=16)
    errors: str | None = None


class ReportRow(SQLModel, table=True):
    """A rendered report: for one seat, or the public one (``seat`` empty) for observers.

    ``mail_queued`` turns true in the transaction that queues the report's mail (or finds it has
    none to send), so the mail pass reads only the reports still waiting, through its index."""

    __tablename__ = "report"
    __table_args__ = (
        UniqueConstraint("game_id", "epoch", "turn", "seat"),
        Index("ix_report_mail_queued", "mail_queued", "game_id"),
    )

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    epoch: int = 0
    turn: int
    seat: str = Field(default="", max_length=32)
    text_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    html_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    mail_queued: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    #: SHA-256 of text, NUL, HTML (see pbem.render.reports.content_digest); None on reports older than it
    content_sha256: str | None = Field(default=None, max_length=64)
    #: where the page (``html_z`` unpacked) holds the turn's shared table, ``"start:end"`` character
    #: offsets, so the mail makes it mail once for every seat (pbem.render.mail_html.mail_page); None on
    #: reports older than it
    table_at: str | None = Field(default=None, max_length=32)


class OutboxRow(SQLModel, table=True):
    """A mail waiting for the SMTP server to accept it. ``dedupe_key`` makes each mail unique
    (``report:GAME:EPOCH:TURN:SEAT``, ``reply:<inbound key>``, ``reminder:GAME:EPOCH:TURN:SEAT``)."""

    __tablename__ = "outbox"

    id: int | None = Field(default=None, sa_column=_id64())
    dedupe_key: str = Field(unique=True, max_length=300)
    game_id: str | None = Field(default=None, index=True, max_length=64)
    to_addr: str = Field(max_length=320)
    subject: str = Field(max_length=300)
    message_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # the whole RFC 5322 message
    created_at: datetime
    status: str = Field(default="pending", index=True, max_length=16)  # pending | sent | failed
    attempts: int = 0
    next_attempt_at: datetime | None = Field(default=None, index=True)
    sent_at: datetime | None = None
    last_error: str | None = None


class InboundRow(SQLModel, table=True):
    """A mail message that was read, once: ``key`` is its Message-ID plus a digest of its content."""

    __tablename__ = "inbound"

    id: int | None = Field(default=None, sa_column=_id64())
    key: str = Field(unique=True, max_length=400)
    received_at: datetime
    from_address: str | None = Field(default=None, max_length=320)
    raw_z: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    submission_id: int | None = Field(
        default=None, sa_column=Column(Int64, ForeignKey("submission.id"), nullable=True)
    )
    outcome: str = Field(default="", max_length=32)  # accepted | rejected | command | ignored | quarantined
    #: tries so far, and the generation of the claim (pbem.mail.poison); the last try's error
    attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    error: str | None = Field(default=None, max_length=300)


class HostRow(SQLModel, table=True):
    """Host-wide facts, as key/value: ``last_tick_at`` (for the outage guard), the schema version."""

    __tablename__ = "host"

    key: str = Field(primary_key=True, max_length=64)
    value: str = ""


class PasswordFailureRow(SQLModel, table=True):
    """A wrong password given by mail for a seat (named as the mail named it, whether or not it
    exists): what :mod:`pbem.intake.guessing` counts per seat, whatever address the guesses come from."""

    __tablename__ = "password_failure"

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(max_length=64, index=True)
    seat: str = Field(max_length=64)
    from_address: str | None = Field(default=None, max_length=320)
    at: datetime = Field(index=True)


# issue 32: open games, joining by mail, standby lists and replacements (pbem.play.lobby, pbem.mail.lobby,
# pbem.cron.replacements; migration 0017). An open game has no game row until it starts: it has no seats
# to set up yet, and every part of the host that reads a game row may then take it to be playable.


class LobbyGameRow(SQLModel, table=True):
    """A game announced with open seats. ``settings_json``: what ``pbem new`` was given (options,
    deadlines, policies, languages, the seed) as :func:`pbem.play.create.create_game` takes it.
    ``status``: open | started | cancelled."""

    __tablename__ = "lobby_game"

    id: str = Field(primary_key=True, max_length=64)
    game_type: str = Field(max_length=64)
    seats: int
    settings_json: str = Field(sa_column=Column(Text, nullable=False))
    start_by: datetime | None = None
    fill_with_bots: bool = False
    status: str = Field(default="open", index=True, max_length=16)
    created_at: datetime
    closed_at: datetime | None = None


class LobbySeatRow(SQLModel, table=True):
    """A seat taken in an open game, once its player confirmed by mail; ``position``: the order of
    confirmation, the seating order the game starts with."""

    __tablename__ = "lobby_seat"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        UniqueConstraint("game_id", "email"),
        UniqueConstraint("game_id", "position"),
    )

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(foreign_key="lobby_game.id", index=True, max_length=64)
    seat: str = Field(max_length=32)
    email: str = Field(max_length=320)
    language: str | None = Field(default=None, max_length=8)
    position: int
    joined_at: datetime


class LobbyCodeRow(SQLModel, table=True):
    """A one-time code mailed to an address, to be sent back from it: what makes a ``join``, a
    ``leave``, a ``resign`` or a ``concede`` happen (only the address's owner reads the code), or takes
    an offered seat (``offer``). Only its SHA-256 is kept. ``detail``: the seat name asked for (join)."""

    __tablename__ = "lobby_code"

    id: int | None = Field(default=None, sa_column=_id64())
    code_sha256: str = Field(max_length=64, unique=True)
    kind: str = Field(max_length=16)  # join | leave | resign | concede | offer
    game_id: str = Field(max_length=64, index=True)
    seat: str | None = Field(default=None, max_length=32)
    email: str = Field(max_length=320, index=True)
    language: str | None = Field(default=None, max_length=8)
    vacancy_id: int | None = Field(default=None, sa_column=Column(Int64, nullable=True))
    created_at: datetime
    used_at: datetime | None = None


class StandbyRow(SQLModel, table=True):
    """An address willing to take over a seat of a game type (``standby GAMETYPE`` by mail)."""

    __tablename__ = "standby"
    __table_args__ = (UniqueConstraint("game_type", "email"),)

    id: int | None = Field(default=None, sa_column=_id64())
    game_type: str = Field(max_length=64, index=True)
    email: str = Field(max_length=320)
    language: str | None = Field(default=None, max_length=8)
    created_at: datetime


class VacancyRow(SQLModel, table=True):
    """A seat of a running game offered for replacement (abandoned under the NMR policy, or resigned):
    ``number`` counts the seat's vacancies, so two ticks opening the same one lose on the constraint.
    Filled when someone accepts (``filled_at``, ``filled_by``)."""

    __tablename__ = "vacancy"
    __table_args__ = (UniqueConstraint("game_id", "seat", "number"),)

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    seat: str = Field(max_length=32)
    number: int
    reason: str = Field(max_length=16)  # abandoned | resigned | conceded
    opened_at: datetime
    filled_at: datetime | None = None
    filled_by: str | None = Field(default=None, max_length=320)


# --- issue 32: a player's record, and notices besides mail (migration 0018) ---


class MissRow(SQLModel, table=True):
    """One missed deadline, kept as its receipt: written where the miss is counted
    (:func:`pbem.cron.policy.record_misses`), in the same transaction as ``SeatRow.misses``. ``email``
    is the seat's address at the time, so the record stays the player's when the seat changes hands.
    ``period``: 1 for the turn's deadline, 2, 3, … for each further turn's length the game waited.
    ``outcome``: ``bot`` (the stand-in played) · ``wait`` (the game waited) · ``abandoned`` (the seat was
    given to the stand-in for good). A game master may excuse it: it stays, shown as excused, and no
    longer counts in the reliability figure (:mod:`pbem.archive.reliability`)."""

    __tablename__ = "miss"
    __table_args__ = (UniqueConstraint("game_id", "epoch", "turn", "seat", "period"),)

    id: int | None = Field(default=None, sa_column=_id64())
    email: str = Field(default="", max_length=320, index=True)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    epoch: int = 0
    turn: int
    seat: str = Field(max_length=32)
    period: int = 1
    deadline_at: datetime
    outcome: str = Field(max_length=16)
    counted_at: datetime
    excused_at: datetime | None = None
    excused_by: str | None = Field(default=None, max_length=320)


class NoticeTargetRow(SQLModel, table=True):
    """A notice URL a seat named (``notify URL`` by mail): an apprise URL (Discord, Matrix, Telegram,
    ntfy, Slack, json://, …). The URL holds the target's token: a secret, never logged, reported or
    archived; ``url_sha256`` keeps one seat from naming the same URL twice without indexing the URL."""

    __tablename__ = "notice_target"
    __table_args__ = (UniqueConstraint("game_id", "seat", "url_sha256"),)

    id: int | None = Field(default=None, sa_column=_id64())
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    seat: str = Field(max_length=32)
    url: str = Field(sa_column=Column(Text, nullable=False))
    url_sha256: str = Field(max_length=64)
    created_at: datetime


class PushRow(SQLModel, table=True):
    """A notice waiting to be sent to one notice URL, queued once per ``dedupe_key``
    (``push:KIND:GAME:EPOCH:TURN:SEAT:TARGET``) in the transaction of the event it tells of.
    ``status``: pending · sending (handed to the target; a sender that died here leaves it, see
    :mod:`pbem.outbox.notices`) · sent · failed · unsure (a sender died while it was in flight)."""

    __tablename__ = "push"

    id: int | None = Field(default=None, sa_column=_id64())
    dedupe_key: str = Field(unique=True, max_length=300)
    game_id: str = Field(foreign_key="game.id", index=True, max_length=64)
    target_id: int = Field(sa_column=Column(Int64, ForeignKey("notice_target.id"), nullable=False))
    title: str = Field(max_length=300)
    body: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime
    status: str = Field(default="pending", index=True, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime | None = Field(default=None, index=True)
    sent_at: datetime | None = None
    last_error: str | None = Field(default=None, max_length=300)
