"""Reports: rendered from one seat's view, self-contained, ending with what the seat must send next."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from host.conftest import Table
from host.pearl_dive import GAME
from pbem.core import caches, registry
from pbem.core.chance import Recorder
from pbem.core.errors import UserError
from pbem.intake.envelope import PASSWORD_PLACEHOLDER, read_envelope
from pbem.play.orders import submit
from pbem.play.turns import process
from pbem.render import tables
from pbem.render.reports import Rendered, context, render_located, render_pair, report, report_rows
from pbem.render.tables import render, table_at_text, table_slice
from tests.browser.played import play


def test_every_report_ends_with_the_order_template_or_nothing_asked(table: Table) -> None:
    red = report(table.engine, table.game_id, "red")
    tail = red.split("WHAT YOU MUST SEND NEXT", 1)[1]
    data = yaml.safe_load(tail.split("\n\n", 1)[1])
    envelope, errors = read_envelope(data)
    assert errors == [] and envelope is not None
    assert (envelope.game, envelope.player, envelope.turn, envelope.password) == (
        "pd-1",
        "red",
        1,
        PASSWORD_PLACEHOLDER,
    )
    assert table.passwords["red"] not in red
    public = report(table.engine, table.game_id, None)
    # the public report speaks to an observer: nothing "you" must send, no "your last report"
    assert "WHAT YOU MUST SEND NEXT" not in public and "Nothing is asked of you" not in public
    assert public.rstrip().endswith("without anyone's hidden holdings.")


def test_html_report_is_self_contained(table: Table) -> None:
    page = report(table.engine, table.game_id, "red", fmt="html")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<style>" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "<script" not in page and "@import" not in page and "url(" not in page


def test_a_report_shows_only_the_seats_own_hidden_pearls(table: Table) -> None:
    for seat in ("red", "blue", "green"):
        submit(table.engine, table.orders(seat))
    process(table.engine, table.game_id)
    red = report(table.engine, table.game_id, "red")
    assert "you drew a pearl worth" in red
    assert red.count("you drew a pearl worth") == 1  # only red's own draw, not blue's or green's
    public = report(table.engine, table.game_id, None)
    assert "you drew" not in public and "Your pearls" not in public


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), resample=st.integers(0, 2**32))
def test_a_report_is_byte_identical_whatever_the_others_hold(seed: int, resample: int) -> None:
    seats = ["red", "blue", "green"]
    state = GAME.setup(seats, GAME.options_model(), Recorder.for_turn(seed, 0, 0))
    other = GAME.resample_hidden(state, "red", Recorder.for_turn(resample, 0, 0))
    one = render_pair(GAME, context(GAME, "g", state, 0, "red", []))
    two = render_pair(GAME, context(GAME, "g", other, 0, "red", []))
    assert one == two


def test_past_turns_stay_readable_and_unknown_ones_are_refused(table: Table) -> None:
    for seat in ("red", "blue", "green"):
        submit(table.engine, table.orders(seat))
    process(table.engine, table.game_id)
    assert "turn 0" in report(table.engine, table.game_id, "red", turn=0).splitlines()[0]
    with pytest.raises(UserError, match="no turn 5"):
        report(table.engine, table.game_id, "red", turn=5)
    with pytest.raises(UserError, match="no seat 'purple'"):
        report(table.engine, table.game_id, "purple")
    with pytest.raises(UserError, match="unknown report format"):
        report(table.engine, table.game_id, "red", fmt="pdf")


def test_once_over_a_past_turn_shows_everything(table: Table) -> None:
    for _ in range(20):
        process(table.engine, table.game_id, fill_missing=True)
    everything = report(table.engine, table.game_id, None, turn=1)
    for seat in ("red", "blue", "green"):
        assert f"Report for {seat}" in everything
    page = report(table.engine, table.game_id, None, turn=1, fmt="html")
    assert page.count("<iframe") == 4


# ------------------------------------------------------------------ where a page holds its table


@pytest.mark.parametrize("game_name", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_a_page_rendered_with_its_table_s_place_is_the_page_rendered(game_name: str) -> None:
    game = registry.get_game(game_name)
    seats = ["alice", "bob", "carol", "dave"]
    history = play(game_name, seats)
    turn = len(history) // 2
    state, events = history[turn]
    for seat in [*seats, None]:
        ctx = context(game, "g", state, turn, seat, events)
        text, page, table_at = render_located(game, ctx)
        caches.clear_all()  # the table rendered anew: the same page
        assert (text, page) == (render(game, "txt", ctx), render(game, "html", ctx)) == render_pair(game, ctx)
        assert table_at is not None
        assert page[slice(*table_at)] == tables.table(game, "html", game.view(state, seat))
        assert table_slice(table_at_text(table_at)) == slice(*table_at)


@pytest.mark.parametrize(("shown", "placed"), [("game-x", False), ("", True), ("only-the-table", True)])
def test_a_table_that_reads_as_another_piece_of_the_page_has_no_place(
    monkeypatch: pytest.MonkeyPatch, shown: str, placed: bool
) -> None:
    # the table is found among the pieces the template writes by its text: one that reads as another
    # piece too (here the game's id, written in the title) is not told apart, so no place is given and
    # the mail makes the page mail whole
    state = GAME.setup(["red", "blue"], GAME.options_model(), Recorder.for_turn(7, 0, 0))
    ctx = context(GAME, "game-x", state, 0, "red", [])
    monkeypatch.setattr(tables, "table", lambda *args, **kwargs: Markup(shown))
    text, page, table_at = render_located(GAME, ctx)
    assert (text, page) == render_pair(GAME, ctx)
    assert (table_at is not None) == placed
    if table_at is not None:
        assert page[table_at[0] :].startswith(shown + "</div>")
        assert page[: table_at[0]].endswith('<div class="block" data-table>\n')
        assert table_at[1] - table_at[0] == len(shown)


@pytest.mark.parametrize(
    ("kept", "place"),
    [
        ("12:345", slice(12, 345)),
        ("0:0", slice(0, 0)),
        (None, None),
        ("", None),
        ("345:12", None),  # not in order
        ("12", None),
        ("-1:5", None),
        ("a:b", None),
        ("1:2:3", None),
    ],
)
def test_a_report_row_s_table_place_reads_back_or_is_none(kept: str | None, place: slice | None) -> None:
    assert table_slice(kept) == place


def test_report_rows_keep_the_table_s_place_of_each_page() -> None:
    rows = report_rows(
        "g-1",
        0,
        3,
        [Rendered("red", "t", "<p>page</p>", (3, 7)), Rendered("", "t", "<p>x</p>"), ("blue", "t", "p")],
    )
    assert [row["table_at"] for row in rows] == ["3:7", None, None]


@pytest.mark.parametrize("lang", ["en", "hu", "zh"])
def test_an_html_report_declares_the_language_it_is_written_in(table: Table, lang: str) -> None:
    page = report(table.engine, table.game_id, "red", fmt="html", lang=lang)
    assert f'<html lang="{lang}">' in page
