"""One run of ``pbem tick``: what cron starts every few minutes, on one machine or on several at once.

In order: the outage guard (:mod:`.outage`); mail in (if a source is configured); every active game,
claimed a few at a time (:mod:`.claims`), brought as far as it can go now (:func:`advance`); report
mail queued for every new report; the outbox delivered. Errors in one game are counted and logged and
never stop the others. The summary is one line::

    tick: games seen 200, turns resolved 57, mails sent 171, reminders 12, errors 0
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Row, func
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.cron import policy
from pbem.cron.deadlines import has_passed, periods_missed
from pbem.cron.notices import send_notice
from pbem.host import claims, jobs, outage
from pbem.mail import lobby_confirm
from pbem.outbox import notices as pushes
from pbem.outbox.settings import MailSettings
from pbem.play import turns
from pbem.storage import fencing
from pbem.storage.cron_models import NoticeRow, TickRow
from pbem.storage.history import seat_rows
from pbem.storage.models import GameRow
from pbem.storage.sqlite import immediate_engine

log = logging.getLogger("pbem.cron")

DEFAULT_REMIND_SECONDS = 12 * 3600
#: a game advances at most this many steps per tick (a turn, a bot turn…): a bound, not a goal
MAX_STEPS = 200


@dataclass(frozen=True)
class TickSettings:
    remind_before: int = DEFAULT_REMIND_SECONDS  # remind this long before a deadline
    outage_after: int = outage.DEFAULT_OUTAGE_SECONDS  # no tick for longer than this: an outage
    lease_seconds: int = claims.DEFAULT_LEASE_SECONDS
    batch: int = 10  # games claimed at once
    host: str = field(default_factory=claims.host_id)
    jobs: int = 1  # processes working on games and mail at once (see pbem.host.jobs)
    trust_clock: bool = False  # a gap since the last tick beyond outage.MAX_PLAUSIBLE_GAP is real

    def __post_init__(self) -> None:  # a name given by --host or $PBEM_HOST_ID, as its columns hold it
        object.__setattr__(self, "host", claims.fitted(self.host))


@dataclass
class GameResult:
    turns: list[int] = field(default_factory=list)
    bot_turns: int = 0
    reminders: int = 0
    late: int = 0
    misses: int = 0
    abandoned: list[str] = field(default_factory=list)


@dataclass
class Summary:
    games_seen: int = 0
    turns_resolved: int = 0
    mails_queued: int = 0
    mails_sent: int = 0
    reminders: int = 0
    late_notices: int = 0
    mails_received: int = 0
    errors: int = 0
    outage_seconds: int = 0

    def line(self) -> str:
        return (
            f"tick: games seen {self.games_seen}, turns resolved {self.turns_resolved}, "
            f"mails sent {self.mails_sent}, reminders {self.reminders}, errors {self.errors}"
        )


def advance(
    engine: Engine,
    game_id: str,
    now: datetime,
    settings: TickSettings,
    mail: MailSettings,
    result: GameResult | None = None,
) -> GameResult:
    """Bring one game as far as it can go at ``now``: resolve what is ready, apply the missed-orders
    policy to a passed deadline, remind before one. Repeats while something changes. What was done is
    added to ``result`` as it happens, so a failure later in the game still leaves it counted."""
    result = GameResult() if result is None else result
    # where the game stands once a turn is written, read in that turn's transaction (under its lock,
    # the clock moved with it): the look after a turn needs no transaction of its own. Only the rows
    # are read there; the game row made of them and its state loaded wait until the lock is given back
    # (on SQLite the lock is the whole database's, which the tick's other jobs are waiting for)
    written: list[tuple[int, dict[str, object], policy.DueRows, tuple[str, ...]]] = []

    def after_turn(session: Session, row: Row[Any], number: int, waiting: tuple[str, ...]) -> None:
        # row: the game row as the turn wrote it, a Core row to read only (pbem.play.turns.AfterTurn)
        policy.clock_turn(session, row, number)
        pushes.queue_turn(session, row, waiting, now)  # "your move" / "the game ended" (issue 32)
        written[:] = [(number, policy.columns_of(row), policy.due_rows(session, row), waiting)]

    for _ in range(MAX_STEPS):
        if written and result.turns and written[0][0] == result.turns[-1]:
            _number, columns, rows, waiting = written[0]  # the turn written last was committed: it stands so
            game = policy.detached(columns)
            where = policy.due_of(game, rows, now, waiting=waiting)
        else:
            found = policy.standing(engine, game_id, now)  # the clock synced, and who owes orders
            if found is None:
                break
            game, where = found
        written.clear()
        step = policy.next_step(game, where, now, settings.remind_before)
        if step is policy.Step.NOTHING:
            break
        if step is policy.Step.RESOLVE:
            done = turns.process(engine, game_id, now=now, after_turn=after_turn)
            result.turns += done
            if not done:
                break
            log.info("game %s: turn %s resolved", game_id, ", ".join(map(str, done)))
            continue
        if step is policy.Step.BOT:
            if has_passed(game, now):
                _count_misses(engine, game, where, now, mail, result)
            done = turns.process(engine, game_id, now=now, fill_missing=True, after_turn=after_turn)
            if not done:
                break
            result.turns += done
            result.bot_turns += 1
            log.info(
                "game %s: turn %d resolved, the stand-in played for %s",
                game_id,
                done[0],
                ", ".join(where.missing),
            )
            continue
        if step is policy.Step.EXTEND:  # the seats missing are away: the deadline waits for them
            moved = policy.extend_for_absence(engine, game_id, where)
            if moved is None:
                break
            log.info("game %s turn %d: deadline moved, %s away", game_id, where.turn, ", ".join(where.away))
            with Session(engine) as session:
                names = [s.name for s in seat_rows(session, game_id)]
            for name in names:  # every seat's calendar event of the turn moves with it
                kind = f"moved-{int(moved.timestamp())}"
                send_notice(engine, mail, kind, game_id, name, epoch=where.epoch, turn=where.turn, now=now)
            continue
        if step is policy.Step.LATE:
            _count_misses(engine, game, where, now, mail, result)
            with Session(engine) as session:
                fresh = session.get(GameRow, game_id)
                assert fresh is not None
                where = policy.due(session, fresh, now)
            if where.only_abandoned_missing:
                continue  # the seats that held the game up are abandoned now: the bot plays them
            period = periods_missed(fresh, now)
            kind = "late" if period <= 1 else f"late-{period}"
            for seat in where.missing:
                if seat in where.abandoned or seat in where.away or _noticed(engine, where, seat, kind):
                    continue
                if send_notice(
                    engine, mail, kind, game_id, seat, epoch=where.epoch, turn=where.turn, now=now
                ):
                    result.late += 1
                    log.info("game %s turn %d: late notice to %s", game_id, where.turn, seat)
            break
        if step is policy.Step.REMIND:
            for seat in where.missing:
                if seat in where.abandoned or seat in where.away or _noticed(engine, where, seat, "reminder"):
                    continue
                if send_notice(
                    engine, mail, "reminder", game_id, seat, epoch=where.epoch, turn=where.turn, now=now
                ):
                    result.reminders += 1
                    log.info("game %s turn %d: reminder to %s", game_id, where.turn, seat)
            break
    return result


def _count_misses(
    engine: Engine, game: GameRow, where: policy.Due, now: datetime, mail: MailSettings, result: GameResult
) -> None:
    for seat, misses, newly in policy.record_misses(engine, game, where, now):
        result.misses += 1
        log.info("game %s turn %d: %s missed the deadline (%d so far)", game.id, where.turn, seat, misses)
        if newly:
            result.abandoned.append(seat)
            log.info(
                "game %s: seat %s abandoned after %d misses; the bot plays for it", game.id, seat, misses
            )
            send_notice(engine, mail, "abandoned", game.id, seat, epoch=where.epoch, turn=where.turn, now=now)


def _noticed(engine: Engine, where: policy.Due, seat: str, kind: str) -> bool:
    with Session(engine) as session:
        found = session.exec(
            select(NoticeRow.id).where(
                NoticeRow.game_id == where.game_id,
                NoticeRow.epoch == where.epoch,
                NoticeRow.turn == where.turn,
                NoticeRow.seat == seat,
                NoticeRow.kind == kind,
            )
        ).first()
    return found is not None


def active_games(engine: Engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(GameRow).where(GameRow.status == "active")).one()


def run_games(
    engine: Engine,
    now: datetime,
    settings: TickSettings,
    mail: MailSettings,
    summary: Summary,
    *,
    only: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    enqueue: Callable[[str | None], int] | None = None,
) -> None:
    """Claim and advance every active game this tick can get, a batch at a time; queue the report mail
    of each game that moved while this tick holds it (so two ticks never compose the same mail)."""
    cursor = ""
    while generations := claims.claim_generations(
        engine,
        settings.host,
        now,
        after=cursor,
        limit=settings.batch,
        lease_seconds=settings.lease_seconds,
        only=only,
    ):
        ids = list(generations)
        passed_by = policy.quiet(engine, ids, now, settings.remind_before)
        for game_id in ids:
            summary.games_seen += 1
            done = GameResult()
            try:
                # every write of this game checks that this claim still holds it (pbem.storage.fencing)
                with fencing.holding(game_id, generations[game_id]):
                    if game_id not in passed_by:
                        advance(engine, game_id, now, settings, mail, done)
                    if done.turns and enqueue is not None:
                        summary.mails_queued += enqueue(game_id)
            except fencing.ClaimLost:  # this tick outlived its lease: the tick that took over does it
                log.warning(
                    "game %s: another tick took it over meanwhile; this one wrote no more of it",
                    game_id,
                )
            except Exception as exc:  # one broken game must not stop the host
                summary.errors += 1
                log.error("game %s: %s: %s", game_id, type(exc).__name__, _one_line(exc), exc_info=exc)
            finally:
                summary.turns_resolved += len(done.turns)
                summary.reminders += done.reminders
                summary.late_notices += done.late
                if progress is not None:
                    progress(game_id)
        claims.release(engine, settings.host, ids, now)  # one write for the batch
        cursor = ids[-1]


#: the counts a helper process hands back to its tick
_SUMMED = (
    "games_seen",
    "turns_resolved",
    "mails_queued",
    "mails_sent",
    "reminders",
    "late_notices",
    "errors",
)


class PartFailed(Exception):
    """A part of the tick did its work, but some of it failed (a message, a mail): ``failures`` errors
    for the summary, ``why`` one line for the log, ``done`` the part's count."""

    def __init__(self, done: int, failures: int, why: str) -> None:
        super().__init__(why)
        self.done, self.failures, self.why = done, failures, why


def _guarded(summary: Summary, name: str, work: Callable[[], int | None]) -> int:
    """Run one part of the tick; a failure (mail server down, database hiccup) is counted and logged,
    and the next tick tries again."""
    try:
        return work() or 0
    except PartFailed as exc:  # reasons known and said in one line: no traceback to add
        summary.errors += max(exc.failures, 1)
        log.error("%s: %s", name, exc.why)
        return exc.done
    except Exception as exc:
        summary.errors += 1
        log.error("%s: %s: %s", name, type(exc).__name__, _one_line(exc), exc_info=exc)
        return 0


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def tick(
    engine: Engine,
    now: datetime,
    *,
    settings: TickSettings | None = None,
    mail: MailSettings | None = None,
    fetch: Callable[[], int] | None = None,
    deliver: Callable[[], int] | None = None,
    enqueue: Callable[[str | None], int] | None = None,
    only: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Summary:
    """One tick at ``now``. ``fetch``/``enqueue``/``deliver`` read mail in, queue report mail (of one game,
    or of all with ``None``) and send the outbox, each returning a count (the CLI builds them from the
    mail settings; ``None`` skips that part). Records the tick in ``cron_tick`` and logs its summary line."""
    settings = settings or TickSettings()
    mail = mail or MailSettings()
    now = utc(now)
    summary = Summary()
    try:
        summary.outage_seconds = outage.guard(
            engine, now, settings.outage_after, trust_clock=settings.trust_clock
        )
    except outage.ClockJump as exc:  # before anything is written: a wrong clock changes nothing
        summary.errors += 1
        log.error("%s", exc)
        return summary
    with Session(engine) as session:
        row = TickRow(host=settings.host, started_at=now)
        session.add(row)
        session.commit()
        row_id = row.id
    if summary.outage_seconds:
        log.warning("no tick for %ds: every deadline in that gap was extended by it", summary.outage_seconds)
    if fetch is not None:
        summary.mails_received = _guarded(summary, "mail in", fetch)
    # open games due to start, seats to offer for replacement (issue 32): before the games, so a game
    # that starts now has its first deadline set by this tick
    _guarded(summary, "open games and replacements", lambda: lobby_confirm.due(engine, mail, now))

    def games_and_mail(
        part: Summary, part_settings: TickSettings, show: Callable[[str], None] | None
    ) -> None:
        _guarded(
            part,
            "games",
            lambda: run_games(
                engine, now, part_settings, mail, part, only=only, progress=show, enqueue=enqueue
            ),
        )
        if enqueue is not None:
            part.mails_queued += _guarded(part, "report mail", lambda: enqueue(None))
        if deliver is not None:
            part.mails_sent += _guarded(part, "mail out", deliver)

    def helper(index: int, report: jobs.Progress) -> dict[str, int]:
        engine.dispose(close=False)  # the tick's pooled connections stay the tick's
        part = Summary()
        games_and_mail(part, replace(settings, host=f"{settings.host}/{index}"), report if progress else None)
        return {name: getattr(part, name) for name in _SUMMED}

    def show(game_id: str) -> None:  # this process's games, and the helpers' finished meanwhile
        helpers.relay()
        if progress is not None:
            progress(game_id)

    with jobs.frozen_heap():
        helpers = jobs.start(settings.jobs - 1, helper, progress)
        games_and_mail(summary, settings, show if progress else None)
        for counts in helpers.join():
            for name in _SUMMED:
                setattr(summary, name, getattr(summary, name) + counts.get(name, 0))
    with Session(immediate_engine(engine)) as session:
        row = session.get(TickRow, row_id)
        assert row is not None
        row.finished_at = now
        for key in ("games_seen", "turns_resolved", "mails_sent", "reminders", "errors", "outage_seconds"):
            setattr(row, key, getattr(summary, key))
        session.add(row)
        session.commit()
    log.info("%s", summary.line())
    return summary
