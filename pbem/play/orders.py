"""Order intake: an order file in, a receipt or every error found out.

The pipeline (boardgame.io's order): read the file (size, encoding, YAML) → envelope → the game exists
→ credentials → the game is not over → the seat owes orders → the turn is current → shape (the game's
order model) → rules (``Game.check``) → store. Each error names its step and rule in a player's words.
A wrong password and an unknown seat get the same answer, so seats cannot be enumerated.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine, Row, bindparam, insert, update
from sqlmodel import Session

from pbem.core import clock
from pbem.core.chance import Recorder
from pbem.core.codec import canonical_json, pack, sha256_hex
from pbem.core.errors import UserError
from pbem.core.game import Game, GameError, RulesError
from pbem.core.i18n import Text, _
from pbem.intake import away, guessing, passwords, redaction, seatpass
from pbem.intake.envelope import (
    PASSWORD_PLACEHOLDER,
    Envelope,
    order_template,
    orders_yaml,
    read_envelope,
    scalar_flow,
)
from pbem.intake.explain import step_errors
from pbem.intake.orderfile import MAX_BYTES, OrderFileError, Positions, load, positions
from pbem.play.standing import due_decision
from pbem.render.preview import preview
from pbem.storage import fencing
from pbem.storage.db import locked_game
from pbem.storage.history import (
    OF_TURN,
    current_state,
    game_facts,
    game_of,
    game_row,
    of_turn,
    seat_facts,
    seat_rows,
)
from pbem.storage.models import SubmissionRow


@dataclass(frozen=True)
class Receipt:
    """The answer to a submission. ``receipt`` is the SHA-256 of :func:`receipt_text`: the game, the
    seat, the turn and the canonical orders (two seats sending the same orders get different ones)."""

    accepted: bool
    game_id: str | None = None
    seat: str | None = None
    turn: int | None = None
    receipt: str | None = None
    errors: list[str] = field(default_factory=list)
    submission_id: int | None = None
    #: when the seat's orders for the turn that these replace came (the latest of them), if any
    replaced_at: datetime | None = None


@dataclass(frozen=True)
class Check:
    """The answer to a dry run: the errors, or a preview of the seat's report."""

    errors: list[str]
    preview: str | None = None
    receipt: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class _Verdict:
    """How far an order file got through the pipeline."""

    errors: list[str] = field(default_factory=list)
    envelope: Envelope | None = None
    row: Row[Any] | None = None  # the game's, to read only (Core rows: pbem.storage.history.game_facts)
    game: Game | None = None
    state: Any = None
    seat: str | None = None
    seat_row: Row[Any] | None = None
    orders_json: str | None = None


def _quote(step: Any) -> str:
    """A step as the player wrote it, short: ``place: Bd5``."""
    text = scalar_flow(step)
    if isinstance(step, dict) and len(step) == 1:
        text = text.removeprefix("{").removesuffix("}")
    return text if len(text) <= 60 else text[:57] + "..."


def _examine(
    session: Session,
    data: Any,
    from_address: str | None,
    raw: str | bytes = b"",
    now: datetime | None = None,
    locked: Row[Any] | None = None,
    signed_in: tuple[str, str] | None = None,
) -> _Verdict:
    """``locked``: the game's row as the caller read it with the game's lock, if it did. ``signed_in``:
    (game, seat) the caller has already proven (a web session, an API token): the file's password is
    not asked for, and the file must name that game and seat."""
    verdict = _Verdict()
    where = positions(raw)
    envelope, errors = read_envelope(data, where)
    if envelope is None:
        verdict.errors = errors
        return verdict
    verdict.envelope = envelope
    if signed_in is not None and (envelope.game, envelope.player) != signed_in:
        verdict.errors = [
            "player: "
            + _(
                "you are signed in as {seat} of game {game}; these orders name {named} of game {other}",
                seat=signed_in[1],
                game=signed_in[0],
                named=repr(envelope.player),
                other=repr(envelope.game),
            )
            + " [auth.other_seat]"
        ]
        return verdict
    if signed_in is None and envelope.password.strip() == PASSWORD_PLACEHOLDER:
        # said before any look-up: it tells nothing about which games or seats exist
        verdict.errors = [
            _(
                "{at}password: the file still says {placeholder}; write there the password you were "
                "given when the game began (in the mail that started it) [auth.placeholder]",
                at=where.key("password"),
                placeholder=PASSWORD_PLACEHOLDER,
            )
        ]
        return verdict
    when = clock.utc(now)
    row = locked if locked is not None and locked.id == envelope.game else game_facts(session, envelope.game)
    if row is None:
        passwords.verify(envelope.password, None)  # same time as a real check
        guessing.wrong(session, envelope.game, envelope.player, from_address, when)  # as for a real seat
        verdict.errors = [
            "game: " + _("there is no game {game}", game=repr(envelope.game)) + " [game.unknown]"
        ]
        return verdict
    seat = next((s for s in seat_facts(session, row.id) if s.name == envelope.player), None)
    proven = (
        seat is not None
        if signed_in is not None
        else seatpass.check(session, seat, envelope.password)  # a requested new password counts too
    )
    if not proven:
        guessing.wrong(session, envelope.game, envelope.player, from_address, when)
        verdict.errors = [
            "password: "
            + _(
                "game {game} has no player {seat} with that password", game=row.id, seat=repr(envelope.player)
            )
            + " [auth.failed]"
        ]
        return verdict
    assert seat is not None
    verdict.row, verdict.seat, verdict.seat_row = row, seat.name, seat
    if row.require_from_match and from_address is not None and not _same_address(from_address, seat):
        verdict.errors = [
            "from: "
            + _(
                "game {game} takes the orders of {seat} only from the address the seat was given",
                game=row.id,
                seat=seat.name,
            )
            + " [auth.from_mismatch]"
        ]
        return verdict
    standing = due_decision(row, seat.name, envelope.turn)
    verdict.game, verdict.state = standing.game, standing.state
    if standing.errors:
        verdict.errors = standing.errors
        return verdict
    game, state, decision = standing.game, standing.state, standing.decision
    assert game is not None and decision is not None
    if envelope.orders is None:
        verdict.errors = [
            "orders: "
            + _(
                "nothing is given under orders:; write your steps there as a list, one '- ' line each "
                "(the template's comments show every step you can take now)"
            )
            + " [orders.empty]"
        ]
        return verdict
    model = game.order_model(decision)
    try:
        orders: BaseModel = model.model_validate(envelope.orders)
    except ValidationError as exc:
        verdict.errors = step_errors(exc, envelope.orders, model, where)
        return verdict
    try:
        game.check(state, seat.name, orders)
        verdict.orders_json = canonical_json(orders.model_dump(mode="json", by_alias=True))
    except RulesError as exc:
        verdict.errors = [rules_error(exc, where)]
    except GameError as exc:
        verdict.errors = [f"orders: {exc}"]
    except Exception as exc:
        # A rules engine that crashes on some orders is a bug, but the intake (mail included) must go
        # on: the orders are refused and kept, and PBEM_DEBUG=1 lets the bug through to be seen.
        if os.environ.get("PBEM_DEBUG"):
            raise
        verdict.errors = [
            "orders: "
            + _(
                "the {title} rules could not check these orders ({error}); the game master has them",
                title=game.title,
                error=type(exc).__name__,
            )
            + " [orders.engine_failure]"
        ]
    return verdict


def receipt_text(game_id: str, seat: str, turn: int, orders_json: str) -> str:
    """What a receipt is the SHA-256 of: canonical JSON of ``{game, seat, turn, orders}``, so that a
    receipt proves which orders were sent for which seat of which game's turn (mail replies show it)."""
    return canonical_json({"game": game_id, "seat": seat, "turn": turn, "orders": json.loads(orders_json)})


def _receipt(game_id: str, seat: str, turn: int, orders_json: str) -> str:
    return sha256_hex(receipt_text(game_id, seat, turn, orders_json))


def rules_error(exc: RulesError, where: Positions) -> str:
    """A rules error as the engine worded it, with the line and the step's number (1-based) in front."""
    if exc.step is None:
        return str(exc)
    if not exc.action:
        action = ""
    elif isinstance(exc.action, Text):  # an action the game names in the reader's words ("ültetés")
        # Translators: a named action before its rules error ("sailing: you have no ship on …")
        action = _("{action}: ", action=exc.action)
    else:  # the rules' numbered actions: "action 10", "10. akció"
        action = _("action {action}: ", action=exc.action)
    said = f"{action}{_(exc.message)} [{exc.code}]"
    if exc.quote:  # the step and its words, with the reader's brackets and colon
        return where.step(exc.step) + _("step {n} (`{step}`): ", n=exc.step + 1, step=exc.quote) + said
    return where.step(exc.step) + _("{label}: {value}", label=_("step {n}", n=exc.step + 1), value=said)


def _same_address(given: str, seat: Row[Any]) -> bool:
    return given.strip().lower() == seat.email.strip().lower()


def _parse(raw: str | bytes) -> tuple[Any, list[str]]:
    """The file's data, or why it could not be read."""
    try:
        return load(raw), []
    except OrderFileError as exc:
        return None, [str(exc)]


# Within a line only ([ \t], not \s) before the key: \s there also spans line breaks, and a file of
# blank lines made the search take time cubic in their number (hours for 16 KiB), under the game's lock.
# After the colon \s* may cross one: a password on the next line is redacted too.
_PASSWORD_LINE = re.compile(r"(?im)^([ \t]*(?:-[ \t]*)?['\"]?password['\"]?[ \t]*:\s*).*$")


def redact(raw: str | bytes, password: str | None) -> str:
    """The file as received, for the record, without the password; an oversized file is cut short."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    text = data[:MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_BYTES:
        text += f"\n[cut: {len(data):,} bytes were received]\n"
    text = _PASSWORD_LINE.sub(r"\1[redacted]", text)
    # the password under a key anywhere on a line (flow YAML, JSON, escapes), and its copies elsewhere
    text = redaction.redact_text(text, [password] if password else [])
    if password and len(password) >= 4:
        text = text.replace(password, "[redacted]")
    return text


def _claimed(data: Any, key: str) -> str | None:
    """What the file says under ``key``, as text, even when its envelope is not valid."""
    value = data.get(key) if isinstance(data, dict) else None
    return str(value) if isinstance(value, str | int) else None


# the seat's earlier orders for the turn set aside: built once, run with each submission's values
# (building the statement cost SQLAlchemy more than running it), on the table through the session's
# connection (the ORM's bulk UPDATE layer around it cost more than SQLite's work; no submission is an
# object in the session, so there is nothing of the session's to bring up to date)
_SUPERSEDE = (
    update(SubmissionRow.__table__)  # type: ignore[attr-defined]
    .where(
        OF_TURN,
        SubmissionRow.seat == bindparam("of_seat"),  # type: ignore[arg-type]
    )
    .values(status="superseded")
    # when the orders set aside came, for the answer to say which it replaced
    .returning(SubmissionRow.__table__.c.received_at)  # type: ignore[attr-defined]
)


_INSERT_SUBMISSION = insert(SubmissionRow.__table__).returning(SubmissionRow.__table__.c.id)  # type: ignore[attr-defined]


def submit(
    engine: Engine,
    text: str | bytes,
    *,
    source: str = "file",
    from_address: str | None = None,
    now: datetime | None = None,
    signed_in: tuple[str, str] | None = None,
) -> Receipt:
    """Check an order file and store it, accepted or rejected (with the password redacted). An
    accepted one replaces the seat's earlier orders for the same turn. Never raises for bad input.
    Handling an inbound message, the submission is stored only while the mail pass's claim on the
    message holds (:func:`pbem.storage.fencing.check_message`), or not at all. ``signed_in``: the
    (game, seat) a web session or API token proved, which stands for the file's password."""
    when = clock.utc(now)
    data, read_error = _parse(text)
    claimed = _claimed(data, "game")
    # expire_on_commit=False: the receipt is made of what this transaction wrote and read; expired,
    # each attribute read after the commit would load its row again in a transaction of its own
    with Session(engine, expire_on_commit=False) as session:
        # The game's write lock first: a turn cannot resolve between our checks and our insert. The
        # row comes back with it, so reading the game below sends nothing more.
        held = locked_game(session, claimed) if claimed is not None else None
        verdict = (
            _Verdict(errors=read_error)
            if read_error
            else _examine(session, data, from_address, text, when, locked=held, signed_in=signed_in)
        )
        envelope, row = verdict.envelope, verdict.row
        accepted = not verdict.errors and verdict.orders_json is not None
        receipt = (
            _receipt(row.id, verdict.seat or "", envelope.turn, verdict.orders_json)
            if accepted and verdict.orders_json and row is not None and envelope is not None
            else None
        )
        replaced: datetime | None = None
        if accepted and row is not None:
            # orders from a seat away end its absence: only then is the seat read as an object of the
            # session, to be changed (the row read for the password check is a Core row, to read only;
            # it was read in this transaction, under the game's lock, so it tells whether the seat is away)
            if verdict.seat_row is not None and verdict.seat_row.away_until is not None:
                away.back(session, row.id, verdict.seat or "", when)
            earlier = session.connection().execute(
                _SUPERSEDE, {**of_turn(row.id, row.epoch, row.turn + 1), "of_seat": verdict.seat}
            )
            replaced = max((clock.utc(at) for (at,) in earlier), default=None)
        password = envelope.password if envelope else _claimed(data, "password")
        # a Core INSERT on the table, its id returned (SQLite 3.35+, PostgreSQL): the ORM's unit of
        # work for one new row that nothing reads back but its id cost more than the statement
        submission_id = (
            session.connection()
            .execute(
                _INSERT_SUBMISSION,
                {
                    "game_id": row.id if row else None,
                    "seat": verdict.seat,
                    "epoch": row.epoch if row else None,
                    "turn": envelope.turn if envelope and row else None,
                    "received_at": when,
                    "source": source[:16],
                    "from_address": from_address[:320] if from_address else None,
                    "raw_z": pack(redact(text, password)),
                    "orders_json": verdict.orders_json,
                    "receipt": receipt,
                    "status": "accepted" if accepted else "rejected",
                    "errors": None if accepted else json.dumps(verdict.errors, ensure_ascii=False),
                },
            )
            .scalar_one()
        )
        fencing.check_message(session)
        session.commit()
        return Receipt(
            accepted=accepted,
            game_id=row.id if row else None,
            seat=verdict.seat,
            turn=envelope.turn if envelope and row else None,
            receipt=receipt,
            errors=list(verdict.errors),
            submission_id=submission_id,
            replaced_at=replaced,
        )


def check(
    engine: Engine,
    text: str | bytes,
    *,
    now: datetime | None = None,
    signed_in: tuple[str, str] | None = None,
) -> Check:
    """A dry run of :func:`submit`: the errors, or a preview of the seat's report. Stores nothing."""
    del now  # the pipeline does not depend on the time today; kept for the service's fixed signature
    data, read_error = _parse(text)
    with Session(engine) as session:
        verdict = (
            _Verdict(errors=read_error)
            if read_error
            else _examine(session, data, None, text, signed_in=signed_in)
        )
        if verdict.errors or verdict.orders_json is None:
            return Check(errors=verdict.errors)
        assert verdict.game and verdict.row and verdict.seat and verdict.envelope
        orders = json.loads(verdict.orders_json)
        decision = verdict.game.pending(verdict.state)[verdict.seat]
        as_read = order_template(
            title=verdict.game.title,
            game_id=verdict.row.id,
            seat=verdict.seat,
            turn=verdict.row.turn + 1,
            decision=decision,
            orders_text=orders_yaml(orders),
            game_name=verdict.game.name,
        )
        receipt = _receipt(verdict.row.id, verdict.seat, verdict.row.turn + 1, verdict.orders_json)
        model = verdict.game.order_model(decision).model_validate(orders)
        shown = preview(
            verdict.game,
            verdict.row,
            verdict.state,
            verdict.seat,
            model,
            as_read,
            receipt,
            on_the_web=signed_in is not None,
        )
        session.rollback()
        return Check(errors=[], preview=shown, receipt=receipt)


def template(engine: Engine, game_id: str, seat: str, *, suggest: bool = False) -> str:
    """The order file ``seat`` must send now: the envelope (password as a placeholder) and the game's
    starter orders, or with ``suggest`` the game's bot's legal choice. Raises :class:`UserError` when
    nothing is asked of ``seat``."""
    with Session(engine) as session:
        row = game_row(session, game_id)
        seats = seat_rows(session, game_id)
        names = [s.name for s in seats]
    if seat not in names:
        raise UserError(
            _(
                "game {game} has no seat {seat}; its seats are {seats}",
                game=game_id,
                seat=repr(seat),
                seats=", ".join(names),
            )
        )
    if row.status != "active":
        if row.status == "finished":
            raise UserError(_("game {game} is finished; nothing is asked of {seat}", game=game_id, seat=seat))
        if row.status == "paused":
            raise UserError(_("game {game} is paused; nothing is asked of {seat}", game=game_id, seat=seat))
        raise UserError(  # a status this host does not name otherwise
            _(
                "game {game} is {status}; nothing is asked of {seat}",
                game=game_id,
                status=row.status,
                seat=seat,
            )
        )
    game = game_of(row)
    state = current_state(game, row)
    decision = game.pending(state).get(seat)
    if decision is None:
        raise UserError(_("nothing is asked of {seat} in game {game} now", seat=seat, game=game_id))
    if suggest:
        chance = Recorder.for_turn(row.seed, row.epoch, row.turn + 1, f"bot:{seat}")
        orders_text = orders_yaml(game.bot(state, seat, chance))
    else:
        orders_text = game.template(state, seat)
    return order_template(
        title=game.title,
        game_id=game_id,
        seat=seat,
        turn=row.turn + 1,
        decision=replace(decision, prompt=_(decision.prompt)),  # in the reader's words, as in a report
        orders_text=orders_text,
        game_name=game.name,
    )
