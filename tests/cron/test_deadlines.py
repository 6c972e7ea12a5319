"""Durations as people write them, and deadlines shown with their time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.core.errors import UserError
from pbem.core.i18n import language
from pbem.cron.deadlines import (
    describe,
    has_passed,
    parse_duration,
    say_duration,
    show_deadline,
    show_duration,
)
from pbem.storage.models import GameRow

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("48h", 172800), ("2d", 172800), ("1d12h", 129600), ("90m", 5400), ("1w", 604800), ("36", 129600)],
)
def test_duration_accepts_units_and_bare_hours(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "2x", "h", "0h", "-3h", "1d 2q"])
def test_duration_rejects_what_is_not_one(text: str) -> None:
    with pytest.raises(UserError, match="duration"):
        parse_duration(text)


def test_duration_shows_two_largest_units() -> None:
    assert show_duration(129600 + 61) == "1d 12h"
    assert show_duration(59) == "59s"
    assert show_duration(-5) == "0s"


def test_deadline_shown_in_utc_and_in_a_named_zone() -> None:
    assert show_deadline(NOON) == "Mar 2, 2026 12:00 UTC"
    assert show_deadline(NOON, "Europe/Berlin") == "Mar 2, 2026 13:00 CET (12:00 UTC)"
    assert show_deadline(NOON.replace(month=7), "America/New_York") == "Jul 2, 2026 08:00 EDT (12:00 UTC)"
    assert show_deadline(None) is None
    with pytest.raises(UserError, match="time zone"):
        show_deadline(NOON, "Mars/Olympus")


def _game(**values: object) -> GameRow:
    return GameRow(
        id="g",
        game_type="t",
        engine_version="1",
        seed=1,
        created_at=NOON,
        state_z=b"",
        state_sha256="",
        **values,
    )


def test_deadline_passes_only_after_the_grace() -> None:
    game = _game(turn_seconds=3600, deadline_at=NOON, grace_seconds=1800)
    assert not has_passed(game, NOON + timedelta(minutes=29))
    assert has_passed(game, NOON + timedelta(minutes=30))
    assert not has_passed(_game(), NOON + timedelta(days=400))  # no deadline: never passes


def test_report_line_says_when_how_long_and_grace() -> None:
    game = _game(turn_seconds=86400, deadline_at=NOON, grace_seconds=7200)
    assert describe(game, NOON - timedelta(hours=26)) == (
        "Mar 2, 2026 12:00 UTC (in 1 day 2 hours; a grace of 2 hours follows)"
    )
    assert describe(game, NOON + timedelta(hours=1)) == (
        "Mar 2, 2026 12:00 UTC (passed; a grace of 2 hours follows)"
    )
    game.status = "paused"
    assert describe(game, NOON) == "paused by the game master: no deadline runs"
    assert describe(_game(), NOON) is None


#: a duration a player reads with 0, 1, 2, 5, 21 and 101 in it, in each language: cs and ru take the
#: forms of 1, 2-4 and 5+ (ru 21 and 101 as 1; cs 21 as 5), in the accusative the deadline line's
#: "za"/"через" needs; hu keeps the noun singular after a number; zh puts its measure after the number
SAID = {
    "en": ["0 seconds", "1 second", "2 minutes", "5 hours", "21 days 1 hour", "101 days"],
    "hu": ["0 másodperc", "1 másodperc", "2 perc", "5 óra", "21 nap 1 óra", "101 nap"],
    "cs": ["0 sekund", "1 sekundu", "2 minuty", "5 hodin", "21 dní 1 hodinu", "101 dní"],
    "zh": ["0 秒", "1 秒", "2 分钟", "5 小时", "21 天 1 小时", "101 天"],
    "ru": ["0 секунд", "1 секунду", "2 минуты", "5 часов", "21 день 1 час", "101 день"],
}


@pytest.mark.parametrize("lang", list(SAID))
def test_a_player_reads_a_duration_in_words_with_the_form_of_its_number(lang: str) -> None:
    with language(lang):
        said = [say_duration(s) for s in (0, 1, 2 * 60, 5 * 3600, 21 * 86400 + 3600, 101 * 86400)]
    assert said == SAID[lang]


def test_the_deadline_line_is_in_the_readers_language_with_no_unit_letters() -> None:
    game = _game(turn_seconds=86400, deadline_at=NOON, grace_seconds=7200)
    with language("ru"):
        line = describe(game, NOON - timedelta(hours=26))
    assert line is not None and line.endswith("(через 1 день 2 часа; затем отсрочка на 2 часа)")
    with language("hu"):
        assert describe(game, NOON + timedelta(hours=1), "UTC").endswith(
            "(lejárt; utána még 2 óra türelmi idő jár)"
        )  # type: ignore[union-attr]
