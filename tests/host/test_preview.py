"""``pbem check``: the report as it would be after the orders, up to the first draw, and no further.

Pearl Dive shows each case: a bid waits for the other seats (simultaneous); a shallow dive leaves
nothing to chance (the preview is the very report the turn then gives); a deep dive is a coin toss
(what happens after it is not shown). Reef Encounter's turn ends with a refill from the bag.
"""

from __future__ import annotations

import yaml
from sqlalchemy import Engine
from sqlmodel import Session

from host.conftest import SEATS, Table
from pbem.core.chance import Recorder, derived_rng
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import check, submit, template
from pbem.play.status import status
from pbem.play.turns import process
from pbem.render.preview import preview
from pbem.render.reports import report
from pbem.storage.history import current_state, game_of, game_row

RULE = "=" * 78


def _dive_phase(table: Table) -> str:
    """Every seat bids; returns the diver, the one seat asked for orders now."""
    for seat, _email in SEATS:
        assert submit(table.engine, table.orders(seat)).accepted
    assert process(table.engine, table.game_id) == [1]
    (diver,) = status(table.engine, table.game_id)[0]["awaited"]
    return diver


def _body(preview: str) -> str:
    """The report part of a preview: after the framed head."""
    return preview.split(RULE + "\n\n", 1)[1]


def test_a_simultaneous_turn_waits_for_the_others(table: Table) -> None:
    result = check(table.engine, table.orders("red"))
    assert result.ok and result.preview is not None
    assert "resolves once blue, green have sent their orders" in result.preview


def test_a_turn_without_chance_previews_the_very_report_it_gives(table: Table) -> None:
    diver = _dive_phase(table)
    orders = table.orders(diver, [{"dive": "shallow"}])
    result = check(table.engine, orders)
    assert result.ok and result.preview is not None
    assert "as it will be" in result.preview
    assert f"{diver} dived shallow for 1 point" in result.preview
    assert submit(table.engine, orders).accepted
    assert process(table.engine, table.game_id) == [2]
    assert _body(result.preview) == report(table.engine, table.game_id, diver, turn=2)


def test_a_draw_ends_the_preview_and_tells_nothing_of_it(table: Table) -> None:
    diver = _dive_phase(table)
    result = check(table.engine, table.orders(diver, [{"dive": "deep"}]))
    assert result.ok and result.preview is not None
    assert "The rest happens when the turn resolves" in result.preview
    assert "found 3 points" not in result.preview and "found nothing" not in result.preview
    assert f"Pearl Dive - {table.game_id} - turn 1" in result.preview  # the table as it stands


def test_the_preview_depends_on_nothing_the_seat_cannot_see(table: Table) -> None:
    # the real table and tables alike in all the diver can see but not in the others' hands and the
    # bag: the same preview, word for word
    diver = _dive_phase(table)
    with Session(table.engine) as session:
        row = game_row(session, table.game_id)
    game = game_of(row)
    state = current_state(game, row)
    orders = game.order_model(game.pending(state)[diver]).model_validate([{"dive": "deep"}])
    shown = {preview(game, row, state, diver, orders, "- dive: deep\n", "0" * 64)}
    for n in range(3):
        other = game.resample_hidden(state, diver, Recorder(derived_rng(99, 0, n)))
        assert other != state or n  # the hidden part does change
        shown.add(preview(game, row, other, diver, orders, "- dive: deep\n", "0" * 64))
    assert len(shown) == 1


def test_reef_encounter_shows_the_steps_before_the_refill(engine: Engine) -> None:
    issued = create_game(engine, "reef-encounter", "r1", [("red", "a@x.org"), ("blue", "b@x.org")], seed=5)
    for seat in ("red", "blue"):
        text = template(engine, "r1", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
        assert submit(engine, text).accepted
    process(engine, "r1")
    data = yaml.safe_load(template(engine, "r1", "red").replace(PASSWORD_PLACEHOLDER, issued["red"]))
    data["orders"] = [{"larva": "orange"}, {"place": "Ca3"}, "pass", {"take": "yellow"}]
    result = check(engine, yaml.safe_dump(data))
    assert result.ok and result.preview is not None
    head = result.preview.split(RULE + "\n\n", 1)[0]
    assert "What your orders do:" in head and "red played their orange larva cube" in head
    assert "The rest happens when the turn resolves" in head
    assert all(len(line) <= 78 for line in head.splitlines())
