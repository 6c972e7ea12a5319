"""The step-by-step orders service (:mod:`pbem.play.builder`) that the form and the API share: the
game's legal next steps in the reader's words, the preview once complete, the same intake as files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from sqlmodel import Session, select

from pbem.core.i18n import language
from pbem.play import builder
from pbem.play.turns import process
from pbem.storage.history import game_facts
from pbem.storage.models import SubmissionRow
from tests.web.orders_game import T0, Stepped, stepped_game


@pytest.fixture
def stepped(tmp_path: Path) -> Iterator[Stepped]:
    with stepped_game(tmp_path) as game:
        yield game


def _hand(setup: Stepped, seat: str) -> list[int]:
    built = builder.steps(setup.engine, setup.game_id, seat, [])
    return [choice.step["bid"] for choice in built.choices]  # type: ignore[index]


def test_a_seat_is_offered_its_legal_bids_grouped_by_keyword(stepped: Stepped) -> None:
    built = builder.steps(stepped.engine, stepped.game_id, "red", [])
    assert built.turn == 1 and not built.complete and built.preview is None
    assert [keyword for keyword, _choices in built.by_keyword()] == ["bid"]
    assert built.choices and all(c.label.startswith("bid your pearl worth") for c in built.choices)
    assert "game: pd-1" in built.text and "player: red" in built.text


def test_one_choice_completes_the_bid_and_shows_the_preview(stepped: Stepped) -> None:
    first = builder.steps(stepped.engine, stepped.game_id, "red", []).choices[0]
    built = builder.steps(stepped.engine, stepped.game_id, "red", [first.step])
    assert built.complete and built.choices == []
    assert built.preview is not None and "Preview of your orders for turn 1" in built.preview
    assert "Nothing is stored until you send them." in built.preview  # the form's own button sends them
    assert "pbem submit" not in built.preview
    assert built.receipt is not None and len(built.receipt) == 64
    assert yaml.safe_load(built.text.split("orders:", 1)[1]) == [first.step]


def test_an_illegal_step_is_refused_in_the_rules_words(stepped: Stepped) -> None:
    with pytest.raises(builder.Refused) as refused:
        builder.steps(stepped.engine, stepped.game_id, "red", [{"bid": 99}])
    assert refused.value.code == "bid.not_held"
    assert "you hold no pearl worth 99" in refused.value.message


def test_a_stale_turn_and_a_seat_that_owes_nothing_are_refused(stepped: Stepped) -> None:
    with pytest.raises(builder.Refused) as stale:
        builder.steps(stepped.engine, stepped.game_id, "red", [], turn=0)
    assert stale.value.code == "turn.stale"
    _play_bids(stepped)  # the bid resolves: one diver owes the dive now
    with Session(stepped.engine) as session:
        row = game_facts(session, stepped.game_id)
    assert row is not None and row.turn == 1
    idle = next(seat for seat in ("red", "blue", "green") if _owes_nothing(stepped, seat))
    with pytest.raises(builder.Refused) as refused:
        builder.steps(stepped.engine, stepped.game_id, idle, [])
    assert refused.value.code == "turn.not_yours"
    assert f"{idle} owes no orders now" in refused.value.message


def _owes_nothing(setup: Stepped, seat: str) -> bool:
    try:
        builder.steps(setup.engine, setup.game_id, seat, [])
    except builder.Refused:
        return True
    return False


def _play_bids(setup: Stepped) -> None:
    for seat in ("red", "blue", "green"):
        built = builder.steps(setup.engine, setup.game_id, seat, [])
        done = builder.steps(setup.engine, setup.game_id, seat, [built.choices[-1].step])
        assert builder.submit(setup.engine, setup.game_id, seat, done.text).accepted
    assert process(setup.engine, setup.game_id, now=T0) == [1]


def test_submit_goes_through_the_intake_and_replaces_until_the_turn_resolves(stepped: Stepped) -> None:
    bids = _hand(stepped, "red")
    first = builder.steps(stepped.engine, stepped.game_id, "red", [{"bid": bids[0]}])
    receipt = builder.submit(stepped.engine, stepped.game_id, "red", first.text)
    assert receipt.accepted and receipt.receipt == first.receipt and receipt.replaced_at is None
    second = builder.steps(stepped.engine, stepped.game_id, "red", [{"bid": bids[-1]}])
    again = builder.submit(stepped.engine, stepped.game_id, "red", second.text)
    assert again.accepted and again.replaced_at is not None
    assert builder.standing_orders(stepped.engine, stepped.game_id, "red") == [{"bid": bids[-1]}]
    with Session(stepped.engine) as session:
        rows = session.exec(select(SubmissionRow).where(SubmissionRow.seat == "red")).all()
    assert [(r.source, r.status) for r in rows] == [("web", "superseded"), ("web", "accepted")]
    assert json.loads(rows[1].orders_json or "null") == [{"bid": bids[-1]}]


def test_the_yaml_box_names_the_signed_in_seat_only(stepped: Stepped) -> None:
    text = builder.template(stepped.engine, stepped.game_id, "red")
    assert builder.check(stepped.engine, stepped.game_id, "red", text).ok
    other = text.replace("player: red", "player: blue")
    checked = builder.check(stepped.engine, stepped.game_id, "red", other)
    assert not checked.ok and "[auth.other_seat]" in checked.errors[0]
    refused = builder.submit(stepped.engine, stepped.game_id, "red", other)
    assert not refused.accepted and refused.seat is None


def test_a_wrong_step_in_the_yaml_box_names_its_line(stepped: Stepped) -> None:
    text = builder.template(stepped.engine, stepped.game_id, "red")
    starter = next(line for line in text.splitlines() if line.startswith("  - bid: "))
    bad = text.replace(starter, "  - bid: 99")
    checked = builder.check(stepped.engine, stepped.game_id, "red", bad)
    line = bad.splitlines().index("  - bid: 99") + 1
    assert not checked.ok and f"line {line}" in checked.errors[0] and "[bid.not_held]" in checked.errors[0]


def test_labels_and_refusals_come_in_the_readers_language(stepped: Stepped) -> None:
    with language("hu"):
        built = builder.steps(stepped.engine, stepped.game_id, "red", [])
        with pytest.raises(builder.Refused) as refused:
            builder.steps(stepped.engine, stepped.game_id, "red", [], turn=0)
    assert "egy korábbi körre" in refused.value.message and refused.value.code == "turn.stale"
    assert built.choices  # the test double's labels have no Hungarian words: shown as they are


def test_tokens_round_trip_and_junk_is_refused() -> None:
    step = {"place": {"at": "Bd5", "from": "front"}}
    assert builder.read_tokens([builder.step_token(step)]) == [step]
    with pytest.raises(builder.Refused) as refused:
        builder.read_tokens(["{not json"])
    assert refused.value.code == "orders.unreadable"
    with pytest.raises(builder.Refused):
        builder.read_tokens(["1"] * (builder.MAX_STEPS + 1))
