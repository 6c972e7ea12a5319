"""Game master commands: pause and resume, extend, replace a player, roll back, observers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.archive.replay import from_database, verify
from pbem.core.codec import unpack
from pbem.core.errors import UserError
from pbem.cron import admin
from pbem.outbox import enqueue_reports
from pbem.play.orders import submit
from pbem.storage.cron_models import GmActionRow
from pbem.storage.models import ReportRow
from tests.cron.conftest import START, new_game, owes, send_orders
from tests.cron.test_tick import MAIL, game, keys, run, seat, turn_rows

H = timedelta(hours=1)


def play_turn(engine: Engine, game_id: str, pw: dict[str, str], at: object) -> None:
    for name in owes(engine, game_id):
        send_orders(engine, game_id, name, pw[name], at)  # type: ignore[arg-type]
    assert run(engine, at).turns_resolved == 1  # type: ignore[arg-type]


def test_paused_game_is_left_alone_and_resume_gives_back_the_time_left(engine: Engine) -> None:
    new_game(engine, "g", nmr="bot")
    assert admin.pause(engine, "g", START + 10 * H) == "game g paused with 14h left"
    with pytest.raises(UserError, match="only an active game can be paused"):
        admin.pause(engine, "g", START + 11 * H)
    idle = run(engine, START + 30 * H)  # the deadline would have passed: nothing happens
    assert (idle.games_seen, idle.turns_resolved) == (0, 0)
    assert admin.resume(engine, "g", START + 100 * H) == "game g resumed; deadline in 14h"
    assert game(engine, "g").deadline_at == START + 114 * H
    with pytest.raises(UserError, match="not paused"):
        admin.resume(engine, "g", START + 100 * H)
    assert run(engine, START + 113 * H).turns_resolved == 0
    assert run(engine, START + 114 * H).turns_resolved == 1


def test_extend_moves_the_deadline_from_where_it_stands_or_from_now(engine: Engine) -> None:
    new_game(engine, "g", nmr="wait")
    admin.extend(engine, "g", 24 * 3600, START + H)
    assert game(engine, "g").deadline_at == START + 48 * H
    run(engine, START + 50 * H)  # passed: blue and red are late
    admin.extend(engine, "g", 2 * 3600, START + 50 * H)
    assert game(engine, "g").deadline_at == START + 52 * H
    with pytest.raises(UserError, match="there is no game 'nope'"):
        admin.extend(engine, "nope", 3600, START)
    with pytest.raises(UserError, match="more than zero"):
        admin.extend(engine, "g", 0, START)


def test_replace_gives_the_seat_a_new_password_and_a_clean_record(engine: Engine) -> None:
    old = new_game(engine, "g", nmr="wait", abandon_after=1, rounds=5)
    send_orders(engine, "g", "red", old["red"], START + H)
    run(engine, START + 25 * H)  # blue misses once: abandoned, the bot plays for it from now on
    assert seat(engine, "g", "blue").abandoned
    password = admin.replace(engine, "g", "blue", "carol@example.org", START + 26 * H)
    blue = seat(engine, "g", "blue")
    assert (blue.email, blue.misses, blue.abandoned) == ("carol@example.org", 0, False)
    assert password != old["blue"] and password not in str(_gm_log(engine))
    at = START + 27 * H
    while "blue" not in owes(engine, "g"):  # red plays on until blue is asked again
        send_orders(engine, "g", "red", old["red"], at)
        run(engine, at)
        at += H
    stale = submit(engine, _orders_with(engine, old["blue"]), now=at)
    assert not stale.accepted and any("password" in e for e in stale.errors)
    send_orders(engine, "g", "blue", password, at)  # the new password works
    with pytest.raises(UserError, match="has no seat 'green'; its seats are red, blue"):
        admin.replace(engine, "g", "green", "x@example.org", START)
    with pytest.raises(UserError, match="not a mail address"):
        admin.replace(engine, "g", "blue", "carol", START)


def _orders_with(engine: Engine, password: str) -> str:
    from pbem.intake.envelope import PASSWORD_PLACEHOLDER
    from pbem.play.orders import template

    return template(engine, "g", "blue", suggest=True).replace(PASSWORD_PLACEHOLDER, password)


def _gm_log(engine: Engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [(r.action, r.detail) for r in session.exec(select(GmActionRow).order_by(GmActionRow.id))]


def test_rollback_keeps_undone_turns_marked_and_plays_on_in_a_new_epoch(engine: Engine) -> None:
    pw = new_game(engine, "g", rounds=3)
    for hours in (1, 2, 3):
        play_turn(engine, "g", pw, START + hours * H)
    after_1 = next(t for t in turn_rows(engine, "g") if t.number == 1)
    with pytest.raises(UserError, match="roll back to a turn from 0 to 2"):
        admin.rollback(engine, "g", 3, START + 4 * H)
    said = admin.rollback(engine, "g", 1, START + 4 * H)
    assert said == "game g rolled back to turn 1 (epoch 1); 2 turns kept as undone"
    row = game(engine, "g")
    assert (row.turn, row.epoch, row.status, row.state_sha256) == (1, 1, "active", after_1.state_sha256)
    assert row.deadline_at == START + 28 * H
    assert [(t.epoch, t.number, t.undone) for t in turn_rows(engine, "g")] == [
        (0, 0, False), (0, 1, False), (0, 2, True), (0, 3, True)
    ]  # fmt: skip
    with Session(engine) as session:
        note = session.exec(select(ReportRow).where(ReportRow.epoch == 1, ReportRow.seat == "red")).one()
    assert note.turn == 1 and "rolled the game back to turn 1" in unpack(note.text_z)
    enqueue_reports(engine, START + 4 * H, settings=MAIL)
    assert "report:g:1:1:red" in keys(engine, "report:g:1:")
    play_turn(engine, "g", pw, START + 5 * H)  # turn 2 again, in the new epoch
    live = [(t.epoch, t.number) for t in turn_rows(engine, "g") if not t.undone]
    assert live == [(0, 0), (0, 1), (1, 2)]
    checked = verify(from_database(engine, "g"))  # the host's replay follows the live line
    assert (checked["ok"], checked["turns"], checked["problems"]) == (True, 3, [])


def test_observer_gets_the_public_report_until_removed(engine: Engine) -> None:
    pw = new_game(engine, "g")
    assert admin.observe(engine, "g", "Kibitz@Example.org", START).startswith(
        "kibitz@example.org now observes"
    )
    play_turn(engine, "g", pw, START + H)
    assert outbox.report_key("g", 0, 1, "", "kibitz@example.org") in keys(engine, "report:g:0:1:")
    admin.observe(engine, "g", "kibitz@example.org", START + 2 * H, remove=True)
    with pytest.raises(UserError, match="does not observe"):
        admin.observe(engine, "g", "kibitz@example.org", START + 2 * H, remove=True)
    assert [action for action, _ in _gm_log(engine)] == ["observe", "unobserve"]


def test_rollback_of_a_paused_game_keeps_it_paused_with_a_whole_turn_to_come(engine: Engine) -> None:
    pw = new_game(engine, "g")
    play_turn(engine, "g", pw, START + H)
    admin.pause(engine, "g", START + 2 * H)
    admin.rollback(engine, "g", 0, START + 3 * H)
    assert (game(engine, "g").status, game(engine, "g").deadline_at) == ("paused", None)
    assert admin.resume(engine, "g", START + 10 * H) == "game g resumed; deadline in 1d"
    assert game(engine, "g").deadline_at == START + 34 * H
