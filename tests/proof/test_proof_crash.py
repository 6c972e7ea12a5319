"""Crashes, a small sample of ``make proof``'s campaign: ``pbem tick`` killed with SIGKILL at random
moments, restarted until done, ends exactly where an uninterrupted run ends."""

from __future__ import annotations

import collections
from pathlib import Path

from proof import crash

KILLS = 10


def test_killed_ticks_lose_and_double_nothing(tmp_path: Path) -> None:
    figures = crash.run(tmp_path, kills=KILLS, games_per_type=1, seed=3)
    assert figures.values["crash.kills"] >= KILLS
    assert figures.values["crash.mails_expected"] > 0 and figures.values["crash.turns_expected"] > 0
    assert figures.values["crash.press_expected"] == 3  # one press mail per game, each handled once
    assert figures.values["crash.lost_or_doubled"] == 0, figures.findings
    assert figures.values["crash.db_differences"] == 0, figures.findings
    # the killed ticks also sent welcomes, password resets and reminders, and recorded a bounce
    for kind in ("welcome", "password", "reminder", "reply", "report"):
        assert figures.values[f"crash.mails_expected.{kind}"] > 0, kind
    assert figures.values["crash.outbox_bounced_expected"] == figures.values["crash.work.bounce"] == 1
    # a game master's extend mail per game type: carried out once, answered, every seat's calendar moved
    assert figures.values["crash.work.game_master"] == 3
    assert figures.values["crash.gm_actions_expected"] == 3
    assert figures.values["crash.mails_expected.shift"] > 0
    # issue 32: every seat names a notice URL; each "your move" posted once, however the ticks died
    assert figures.values["crash.work.notice_targets"] > 0 and figures.values["crash.notices_expected"] > 0
    assert not figures.findings


def test_a_mail_delivered_twice_is_a_difference() -> None:
    once = {"mails": collections.Counter({"ann «report» <1@x>": 1})}
    twice = {"mails": collections.Counter({"ann «report» <1@x>": 2})}
    never = {"mails": collections.Counter()}
    assert crash.differences(once, once) == {}
    assert crash.differences(once, twice) == {"mails": (0, 1)}
    assert crash.differences(once, never) == {"mails": (1, 0)}


def test_a_mail_accepted_just_before_a_crash_is_delivered_once(tmp_path: Path) -> None:
    delivered = crash.killed_after_accepting(tmp_path)
    assert len(delivered) >= 2, "every seat's report should be in the outbox"
    assert set(delivered.values()) == {1}, delivered
