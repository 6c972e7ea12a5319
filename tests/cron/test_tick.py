"""``pbem tick`` under a fake clock: turns resolve once, reminders go once, the missed-orders policies
(wait, bot, abandoned seats) and the outage guard behave, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.host.tick import Summary, TickSettings, tick
from pbem.outbox import enqueue_reports, unpack_message
from pbem.outbox.settings import MailSettings
from pbem.play import turns
from pbem.storage.cron_models import ClockRow, NoticeRow
from pbem.storage.models import GameRow, OutboxRow, SeatRow, SubmissionRow, TurnRow
from tests.cron.conftest import START, new_game, owes, read_mail_text, send_orders

H = timedelta(hours=1)
MAIL = MailSettings(from_addr="host@example.org")
SETTINGS = TickSettings(host="test", remind_before=12 * 3600, outage_after=30 * 86400)


def run(engine: Engine, at: datetime, settings: TickSettings = SETTINGS) -> Summary:
    return tick(
        engine,
        at,
        settings=settings,
        mail=MAIL,
        enqueue=lambda game_id: enqueue_reports(engine, at, settings=MAIL, game_id=game_id),
    )


def keys(engine: Engine, prefix: str) -> list[str]:
    with Session(engine) as session:
        found = session.exec(
            select(OutboxRow.dedupe_key).where(OutboxRow.dedupe_key.startswith(prefix))
        ).all()  # type: ignore[attr-defined]
    return sorted(found)


def seat(engine: Engine, game_id: str, name: str) -> SeatRow:
    with Session(engine) as session:
        return session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == name)).one()


def game(engine: Engine, game_id: str) -> GameRow:
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row


def turn_rows(engine: Engine, game_id: str) -> list[TurnRow]:
    with Session(engine) as session:
        return list(session.exec(select(TurnRow).where(TurnRow.game_id == game_id).order_by(TurnRow.number)))


def test_turn_resolves_once_when_every_order_is_in(engine: Engine) -> None:
    pw = new_game(engine, "g")
    assert run(engine, START + H).turns_resolved == 0  # nobody has sent anything
    for name in ("red", "blue"):
        send_orders(engine, "g", name, pw[name], START + H)
    first = run(engine, START + 2 * H)
    assert (first.games_seen, first.turns_resolved, first.errors) == (1, 1, 0)
    assert first.line() == "tick: games seen 1, turns resolved 1, mails sent 0, reminders 0, errors 0"
    assert run(engine, START + 3 * H).turns_resolved == 0
    assert [t.number for t in turn_rows(engine, "g")] == [0, 1]
    assert game(engine, "g").claimed_by is None  # the lease is given back


def test_reminder_goes_once_to_each_seat_whose_orders_are_missing(engine: Engine) -> None:
    pw = new_game(engine, "g")
    send_orders(engine, "g", "red", pw["red"], START + H)
    assert run(engine, START + 11 * H).reminders == 0  # the deadline is 24h away: too early
    assert run(engine, START + 13 * H).reminders == 1
    assert run(engine, START + 14 * H).reminders == 0
    assert keys(engine, "reminder:") == ["reminder:g:0:1:blue"]
    with Session(engine) as session:
        mail = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == "reminder:g:0:1:blue")).one()
    text = read_mail_text(unpack_message(mail.message_z))
    assert mail.to_addr == "blue@example.org"
    assert "due by Mar 3, 2026 09:00 UTC (in 11 hours)" in text
    assert "password: YOUR-PASSWORD" in text and pw["blue"] not in text and pw["red"] not in text


def test_wait_policy_sends_late_notices_counts_misses_and_waits(engine: Engine) -> None:
    pw = new_game(engine, "g", nmr="wait")
    send_orders(engine, "g", "red", pw["red"], START + H)
    late = run(engine, START + 25 * H)
    assert (late.turns_resolved, late.late_notices) == (0, 1)
    assert keys(engine, "late") == ["late:g:0:1:blue"]
    assert (seat(engine, "g", "blue").misses, seat(engine, "g", "red").misses) == (1, 0)
    assert run(engine, START + 30 * H).late_notices == 0  # once per waiting period
    assert seat(engine, "g", "blue").misses == 1
    assert run(engine, START + 49 * H).late_notices == 1  # a second day of waiting: a second miss
    assert keys(engine, "late") == ["late-2:g:0:1:blue", "late:g:0:1:blue"]
    assert seat(engine, "g", "blue").misses == 2
    send_orders(engine, "g", "blue", pw["blue"], START + 50 * H)
    assert run(engine, START + 50 * H).turns_resolved == 1
    assert json.loads(turn_rows(engine, "g")[1].by_bot_json) == []


def test_bot_policy_plays_for_the_absent_seat_after_deadline_and_grace(engine: Engine) -> None:
    pw = new_game(engine, "g", nmr="bot", grace_seconds=2 * 3600)
    send_orders(engine, "g", "red", pw["red"], START + H)
    assert run(engine, START + 25 * H).turns_resolved == 0  # deadline passed, grace not yet
    assert run(engine, START + 26 * H).turns_resolved == 1
    assert json.loads(turn_rows(engine, "g")[1].by_bot_json) == ["blue=easy"]
    assert seat(engine, "g", "blue").misses == 1 and not seat(engine, "g", "blue").abandoned
    with Session(engine) as session:
        sources = session.exec(
            select(SubmissionRow.seat, SubmissionRow.source).where(SubmissionRow.turn == 1)
        ).all()
    assert sorted(sources) == [("blue", "bot"), ("red", "file")]
    assert keys(engine, "late") == []  # the bot policy sends no late notice: the turn went on


def test_abandoned_seat_is_played_by_the_bot_without_waiting(engine: Engine) -> None:
    pw = new_game(engine, "g", nmr="wait", abandon_after=2, rounds=3)
    send_orders(engine, "g", "red", pw["red"], START + H)
    run(engine, START + 25 * H)
    assert not seat(engine, "g", "blue").abandoned
    after = run(engine, START + 49 * H)  # the second missed day: abandoned, and the bot plays at once
    assert seat(engine, "g", "blue").abandoned
    assert after.turns_resolved >= 1
    assert keys(engine, "abandoned:") == ["abandoned:g:0:1:blue"]
    at = START + 49 * H
    for _ in range(20):  # red alone plays on, an hour a turn: blue never holds the game up again
        if game(engine, "g").status == "finished":
            break
        at += H
        if "red" in owes(engine, "g"):
            send_orders(engine, "g", "red", pw["red"], at)
        run(engine, at)
    assert game(engine, "g").status == "finished"
    assert at < START + 49 * H + timedelta(hours=24)  # no deadline passed after the abandonment
    bot_turns = [t for t in turn_rows(engine, "g") if "blue=easy" in json.loads(t.by_bot_json)]
    assert len(bot_turns) >= 2


def test_outage_extends_deadlines_instead_of_punishing(engine: Engine) -> None:
    new_game(engine, "g", nmr="bot")
    guarded = TickSettings(host="test", remind_before=3600, outage_after=3 * 3600)
    run(engine, START, guarded)
    back = run(engine, START + 30 * H, guarded)  # the host was away 30h; the deadline was at +24h
    assert back.outage_seconds == 30 * 3600
    assert back.turns_resolved == 0 and seat(engine, "g", "blue").misses == 0
    assert game(engine, "g").deadline_at == START + 54 * H
    assert run(engine, START + 55 * H, TickSettings(host="test", outage_after=30 * 86400)).turns_resolved == 1


def test_a_failing_game_is_counted_and_the_others_go_on(engine: Engine) -> None:
    pw = new_game(engine, "a-good")
    new_game(engine, "b-broken")
    with Session(engine) as session:
        broken = session.get(GameRow, "b-broken")
        assert broken is not None
        broken.game_type = "no-such-game"
        session.add(broken)
        session.commit()
    for name in ("red", "blue"):
        send_orders(engine, "a-good", name, pw[name], START)
    summary = run(engine, START + H)
    assert (summary.games_seen, summary.turns_resolved, summary.errors) == (2, 1, 1)
    assert game(engine, "b-broken").claimed_by is None


def test_notices_are_recorded_once_per_turn_and_seat(engine: Engine) -> None:
    new_game(engine, "g", nmr="wait")
    for hours in (13, 14, 25, 26, 27):
        run(engine, START + hours * H)
    with Session(engine) as session:
        kinds = sorted(session.exec(select(NoticeRow.kind, NoticeRow.seat)).all())
    assert kinds == [
        ("late", "blue"),
        ("late", "red"),
        ("miss", "blue"),
        ("miss", "red"),
        ("reminder", "blue"),
        ("reminder", "red"),
    ]


def test_a_turn_resolved_outside_a_tick_gets_a_deadline_from_when_it_became_due(engine: Engine) -> None:
    pw = new_game(engine, "g")
    for name in ("red", "blue"):
        send_orders(engine, "g", name, pw[name], START + H)
    assert turns.process(engine, "g", now=START + 2 * H) == [1]  # `pbem process`, not a tick
    with Session(engine) as session:  # as a host that sets no deadline itself (an older one) leaves it
        row = session.get(GameRow, "g")
        assert row is not None
        row.deadline_at = None
        session.add(row)
        session.commit()
    run(engine, START + 5 * H)
    assert game(engine, "g").deadline_at == START + 2 * H + timedelta(days=1)


def test_the_clock_moves_with_the_turn_in_the_turns_own_transaction(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    pw = new_game(engine, "g")
    for name in ("red", "blue"):
        send_orders(engine, "g", name, pw[name], START + H)

    def clock() -> tuple[int, int] | None:
        with Session(engine) as session:
            row = session.get(ClockRow, "g")
            return None if row is None else (row.epoch, row.turn)

    with monkeypatch.context() as patched:  # the turn fails while it is being written
        patched.setattr("pbem.storage.history.store_reports", lambda *args: 1 / 0)
        assert run(engine, START + 2 * H).errors == 1
    assert clock() == (0, 0) and [t.number for t in turn_rows(engine, "g")] == [0]
    assert run(engine, START + 3 * H).turns_resolved == 1
    assert clock() == (0, 1) and [t.number for t in turn_rows(engine, "g")] == [0, 1]
    assert game(engine, "g").deadline_at == START + 3 * H + timedelta(days=1)


def test_no_reminder_without_a_deadline_nor_to_an_abandoned_seat(engine: Engine) -> None:
    new_game(engine, "free", turn_seconds=None)
    assert run(engine, START + 400 * H).reminders == 0  # no deadline: nobody is hurried
    at = START + 400 * H
    pw = new_game(engine, "g", at, nmr="wait", abandon_after=1, rounds=5)
    send_orders(engine, "g", "red", pw["red"], at)
    run(engine, at + 25 * H)  # blue misses turn 1: abandoned, and the bot plays for it
    assert seat(engine, "g", "blue").abandoned
    at += 25 * H
    for _ in range(30):  # red plays on, each turn just before its deadline, past every reminder time
        if game(engine, "g").status != "active":
            break
        at += 23 * H
        run(engine, at)
        if "red" in owes(engine, "g"):
            send_orders(engine, "g", "red", pw["red"], at)
        run(engine, at)
    reminded = keys(engine, "reminder:g:")
    assert any(key.endswith(":red") for key in reminded)
    assert not any(key.endswith(":blue") for key in reminded)  # abandoned: the bot needs no reminder


def test_quiet_games_are_only_those_a_closer_look_would_leave_alone(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.cron import policy
    from pbem.intake import passwords

    monkeypatch.setattr(passwords, "_N", 2)
    now = START + H
    pw = {}
    deadlines = {"no-deadline": None, "soon": 6 * 3600}  # the others: a day
    for game_id in [
        "quiet",
        "no-deadline",
        "soon",
        "orders-in",
        "abandoned",
        "unknown",
        "paused",
        "no-clock",
    ]:
        seconds = deadlines.get(game_id, 86400)
        pw[game_id] = new_game(engine, game_id, turn_seconds=seconds)
        if game_id != "no-clock":
            policy.sync_clock(engine, game_id, now)
    send_orders(engine, "orders-in", "red", pw["orders-in"]["red"], now)
    with Session(engine) as session:
        for game_id, change in [("abandoned", None), ("unknown", "game_type"), ("paused", "status")]:
            if change is None:
                row = session.exec(
                    select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == "blue")
                ).one()
                row.abandoned = True
            else:
                row = session.get(GameRow, game_id)
                setattr(row, change, "no-such-game" if change == "game_type" else "paused")
            session.add(row)
        session.commit()
    every = list(pw)
    assert policy.quiet(engine, every, now, 12 * 3600) == {"quiet", "no-deadline"}
    # and a closer look agrees: for each quiet game, the next step is nothing
    for game_id in ("quiet", "no-deadline"):
        row = game(engine, game_id)
        with Session(engine) as session:
            where = policy.due(session, row)
        assert policy.next_step(row, where, now, 12 * 3600) is policy.Step.NOTHING
    assert policy.quiet(engine, every, START + 13 * H, 12 * 3600) == {"no-deadline"}  # the reminder is near
