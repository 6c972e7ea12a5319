"""Event and reply texts built from pieces are whole messages for the translators, and say the same
English as before (state hashes and recorded games compare the English)."""

from __future__ import annotations

from games.coral_divers.turn import _reef_closed
from games.reef_encounter.engine import _ends
from pbem.core.i18n import TN_, Text, placeholders
from pbem.outbox import replies


def test_a_closed_reef_is_one_message_for_every_count() -> None:
    # the counts beside their labels: one message reads right for 1, 3 and 5 in every language (Russian's
    # three plural forms would not fit English's two)
    one = _reef_closed("brain", "C4", 1, 1)
    many = _reef_closed("brain", "C4", 3, 6)
    assert (str(one), str(many)) == (
        "brain reef at C4 (tiles: 1, points: 1)",
        "brain reef at C4 (tiles: 3, points: 6)",
    )
    assert (
        isinstance(many, Text)
        and one.msgid == many.msgid == "{coral} reef at {diver} (tiles: {tiles}, points: {points})"
    )
    assert many.params["coral"].context == "coral"  # the kind is a glossary term, shown in the reader's word


def test_a_counted_text_picks_its_form_and_fills_n() -> None:
    one, many = "absorbs {n} neutral reef", "absorbs {n} neutral reefs"
    assert str(TN_(one, many, 1)) == "absorbs 1 neutral reef"
    assert str(TN_(one, many, 2)) == "absorbs 2 neutral reefs"
    assert TN_(one, many, 2).params == {"n": 2}


def test_the_game_ends_is_a_whole_sentence_for_each_reason_with_the_same_english() -> None:
    why = "every coral tile is locked by an alga"
    assert str(_ends(why, "red", final_turns=False)) == f"the game ends: {why}"
    assert _ends(why, "red", final_turns=False).msgid == f"the game ends: {why}"
    fourth = _ends("red fed their fourth coral", "red", final_turns=True)
    assert str(fourth) == "the game ends: red fed their fourth coral; the others get a final feeding turn"
    assert placeholders(fourth.msgid) == {"{seat}"}
    # a reason not known here is still said, as before
    assert str(_ends("a storm", "red", final_turns=False)) == "the game ends: a storm"


def test_a_rejection_names_where_the_orders_were_read_from_as_before() -> None:
    assert replies.rejected_body(["x"], "attachment orders.yaml").startswith(
        "Your orders (read from the attachment orders.yaml) were NOT accepted:\n\n  - x\n"
    )
    assert replies.rejected_body(["x"], "").startswith("Your orders were NOT accepted:")
    assert replies.too_large_body(123456, 100000).startswith(
        "Your message has 123,456 bytes; the host reads messages of at most 100,000."
    )
    assert replies.refused_body(["y"]).endswith(replies.HOW_TO)


def test_a_notice_counts_missed_deadlines_in_whole_sentences() -> None:
    from datetime import UTC, datetime

    from pbem.core.registry import games
    from pbem.cron.notices import body
    from pbem.storage.models import GameRow, SeatRow

    kind = next(iter(games()))
    now = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    game = GameRow(id="g", game_type=kind, seed="s", deadline_at=now, abandon_after=1)
    seat = SeatRow(game_id="g", name="blue", misses=1, position=0)
    late = body("late", game, seat, 4, now, None)
    assert "Deadlines missed by this seat so far: 1." in late
    assert "After 1 missed deadline a seat is marked abandoned and the bot plays for it." in late
    gone = body("abandoned", game, seat, 4, now, None)
    assert "This seat missed 1 deadline and is now marked abandoned" in gone
    assert "(pbem replace g blue ADDRESS)" in gone
    assert gone.startswith(f"{games()[kind].title} game g, seat blue, turn 4.\n")
