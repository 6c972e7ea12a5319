"""Order intake: every step of the pipeline, each error naming its step and rule; nothing stored but
the submission itself."""

from __future__ import annotations

import json

import pytest
import yaml
from sqlmodel import Session, select

from host.conftest import Table
from pbem.core import registry
from pbem.core.codec import unpack
from pbem.intake.orderfile import MAX_BYTES
from pbem.play.orders import check, redact, submit
from pbem.play.status import status
from pbem.play.turns import process
from pbem.storage.models import GameRow, SubmissionRow, TurnRow


def submissions(table: Table) -> list[SubmissionRow]:
    with Session(table.engine) as session:
        return list(session.exec(select(SubmissionRow).order_by(SubmissionRow.id)))


def game_state(table: Table) -> tuple[int, str]:
    with Session(table.engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        return row.turn, row.state_sha256


def test_legal_orders_are_accepted_with_a_receipt(table: Table) -> None:
    receipt = submit(table.engine, table.orders("red"))
    assert receipt.accepted and receipt.errors == []
    assert (receipt.game_id, receipt.seat, receipt.turn) == ("pd-1", "red", 1)
    assert receipt.receipt is not None and len(receipt.receipt) == 64
    [row] = submissions(table)
    assert row.status == "accepted" and row.id == receipt.submission_id


def test_the_password_never_reaches_the_database(table: Table) -> None:
    submit(table.engine, table.orders("red"))
    submit(table.engine, table.orders("blue", password="wrong-guess-00"))
    for row in submissions(table):
        raw = unpack(row.raw_z)
        assert "password: [redacted]" in raw
        assert table.passwords["red"] not in raw and "wrong-guess-00" not in raw


def test_the_record_redacts_a_password_wherever_its_line_is() -> None:
    assert redact("game: g\n  - password: 'a b'\n", None) == "game: g\n  - password: [redacted]\n"
    assert redact("Password:\n  on-the-next-line\nturn: 1\n", None) == "Password:\n  [redacted]\nturn: 1\n"
    # a file of blank lines once took the redaction hours (the search was cubic in their number)
    blank = "\n" * (MAX_BYTES - 40) + "password: hunter-22\n"
    assert redact(blank, None).endswith("\npassword: [redacted]\n")


def test_wrong_password_and_unknown_seat_get_the_same_answer(table: Table) -> None:
    wrong = submit(table.engine, table.orders("red", password="tulip-frog-42"))
    text = table.orders("red").replace("player: red", "player: purple")
    unknown = submit(table.engine, text)
    assert not wrong.accepted and not unknown.accepted
    assert wrong.errors[0].endswith("[auth.failed]")
    assert wrong.errors[0].replace("'red'", "'X'") == unknown.errors[0].replace("'purple'", "'X'")
    assert wrong.seat is None and unknown.seat is None


def test_unknown_game_is_named(table: Table) -> None:
    receipt = submit(table.engine, table.orders("red").replace("game: pd-1", "game: pd-9"))
    assert receipt.errors == ["game: there is no game 'pd-9' [game.unknown]"]


def test_stale_and_future_turns_are_rejected(table: Table) -> None:
    stale = submit(table.engine, table.orders("red", turn=0))
    future = submit(table.engine, table.orders("red", turn=2))
    assert stale.errors[0].endswith("[turn.stale]") and "takes orders for turn 1" in stale.errors[0]
    assert future.errors[0].endswith("[turn.future]")


def test_a_seat_that_owes_nothing_is_told_who_is_awaited(table: Table) -> None:
    for seat in ("red", "blue", "green"):
        assert submit(table.engine, table.orders(seat)).accepted
    assert process(table.engine, table.game_id) == [1]
    [diver] = status(table.engine, table.game_id)[0]["awaited"]
    idle = next(s for s in ("red", "blue", "green") if s != diver)
    orders = (
        table.orders(diver)
        .replace(f"player: {diver}", f"player: {idle}")
        .replace(table.passwords[diver], table.passwords[idle])
    )
    receipt = submit(table.engine, orders)
    assert receipt.errors == [
        f"player: {idle} owes no orders now; the game waits for {diver} [turn.not_yours]"
    ]


def test_shape_errors_name_each_step(table: Table) -> None:
    receipt = submit(table.engine, table.orders("red", [{"bid": "lots"}]))
    assert receipt.errors == [
        "line 6, step 1 (`bid: lots`): `lots` is not a whole number. The template's comments show how to "
        "write `bid`. [orders.bad_value]"
    ]
    unknown = submit(table.engine, table.orders("red", [{"swim": 3}]))
    assert unknown.errors == [
        "line 6, step 1 (`swim: 3`): `swim` is not a step you can take now; the steps here are: bid (the "
        "template's comments show each one) [orders.unknown_step]"
    ]


def test_an_untouched_template_asks_for_steps_in_plain_words(table: Table) -> None:
    # A template whose every step is a comment leaves ``orders:`` empty, which YAML reads as null.
    envelope = {k: v for k, v in yaml.safe_load(table.orders("red")).items() if k != "orders"}
    text = yaml.safe_dump(envelope) + "orders:\n  # - bid: 3\n"
    receipt = submit(table.engine, text)
    assert receipt.errors == [
        "orders: nothing is given under orders:; write your steps there as a list, one '- ' line each "
        "(the template's comments show every step you can take now) [orders.empty]"
    ]


def test_rules_errors_come_from_the_game(table: Table) -> None:
    receipt = submit(table.engine, table.orders("red", [{"bid": 99}]))
    assert receipt.errors == [
        "line 6, step 1 (`bid: 99`): action bid: you hold no pearl worth 99 [bid.not_held]"
    ]


def test_envelope_errors_list_every_problem(table: Table) -> None:
    receipt = submit(table.engine, "game: pd-1\nplayer: red\ncolour: blue\norders: []\n")
    codes = sorted(e.rsplit("[", 1)[1] for e in receipt.errors)
    assert codes == ["envelope.extra_forbidden]", "envelope.missing]", "envelope.missing]"]


def test_rejected_submission_changes_nothing_else(table: Table) -> None:
    before = game_state(table)
    for text in ("game: [", table.orders("red", [{"bid": 99}]), b"\xff" * (10 * 1024 * 1024)):
        assert not submit(table.engine, text).accepted
    assert game_state(table) == before
    rows = submissions(table)
    assert [r.status for r in rows] == ["rejected"] * 3
    assert all(json.loads(r.errors or "[]") for r in rows)
    assert len(unpack(rows[2].raw_z)) < 70_000  # a huge file is kept only in part


def test_later_orders_replace_earlier_ones_for_the_same_turn(table: Table) -> None:
    first = submit(table.engine, table.orders("red"))
    second = submit(table.engine, table.orders("red"))
    assert first.accepted and second.accepted
    assert [r.status for r in submissions(table)] == ["superseded", "accepted"]


def test_orders_for_a_finished_game_are_refused(table: Table) -> None:
    orders = table.orders("red")
    with Session(table.engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        row.status = "finished"
        session.add(row)
        session.commit()
    assert submit(table.engine, orders).errors == [
        "game: game pd-1 is over; no more orders are taken [game.over]"
    ]


def test_mail_must_come_from_the_seats_address_when_the_game_says_so(engine, table: Table) -> None:  # type: ignore[no-untyped-def]
    with Session(engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        row.require_from_match = True
        session.add(row)
        session.commit()
    wrong = submit(engine, table.orders("red"), source="mail", from_address="mallory@example.org")
    right = submit(engine, table.orders("red"), source="mail", from_address="Red@Example.org")
    assert wrong.errors[0].endswith("[auth.from_mismatch]")
    assert right.accepted


def test_check_previews_without_storing(table: Table) -> None:
    result = check(table.engine, table.orders("red", [{"bid": table_pearl(table, "red")}]))
    assert result.ok and result.preview is not None
    assert "Preview of your orders for turn 1: they are legal" in result.preview
    assert "Your pearls:" in result.preview
    assert submissions(table) == []
    bad = check(table.engine, table.orders("red", [{"bid": 99}]))
    assert bad.errors and bad.preview is None
    with Session(table.engine) as session:
        assert session.exec(select(TurnRow)).all()[0].number == 0


def table_pearl(table: Table, seat: str) -> int:
    import yaml

    return int(yaml.safe_load(table.orders(seat))["orders"][0]["bid"])


def test_a_rules_engine_crash_rejects_the_orders_and_keeps_them(table: Table, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def crash(*_args: object) -> None:
        raise KeyError("reef")

    # the instance the host uses: another conftest may have registered its own import of the module
    monkeypatch.setattr(registry.get_game("pearl-dive"), "check", crash)
    monkeypatch.delenv("PBEM_DEBUG", raising=False)
    receipt = submit(table.engine, table.orders("red"))
    assert receipt.errors == [
        "orders: the Pearl Dive rules could not check these orders (KeyError); the game master has them "
        "[orders.engine_failure]"
    ]
    assert [r.status for r in submissions(table)] == ["rejected"]
    monkeypatch.setenv("PBEM_DEBUG", "1")
    with pytest.raises(KeyError):
        submit(table.engine, table.orders("red"))
