"""The hardening families of the campaign at a tiny size: every zero goal met."""

from __future__ import annotations

from pathlib import Path

from proof import hardening


def test_the_hardening_families_meet_every_zero_goal(tmp_path: Path) -> None:
    figures = hardening.run(tmp_path, messages=40, jumps=3, mails=5)
    assert figures.values["hardening.poison_messages"] == 40
    assert figures.values["hardening.mails_sent"] >= 8  # the good replies and the outsiders' answerable ones
    assert figures.values["hardening.clock_jumps"] == 3
    assert figures.missed() == [], (figures.values, figures.findings)
    assert figures.values["hardening.fetch_peak_mb"] <= 200
