"""A rules error names its action as the reader says it: a numbered action with the language's own
ordinal ("10. akció"), a named one in the reader's words ("ültetés", "种植", "hajózás"), never the
English name the game's code uses."""

from __future__ import annotations

import pytest

from games.coral_divers.turn import ACTION_PLANT
from games.mare_balticum.rules import ACTIONS
from pbem.core.game import RulesError
from pbem.core.i18n import T_, language
from pbem.play.orders import rules_error


class _Lines:
    def step(self, index: int) -> str:
        return f"line {index + 6}, "


@pytest.mark.parametrize(
    ("lang", "action", "said"),
    [
        ("hu", "10", "10. akció: "),
        ("hu", ACTION_PLANT, ": ültetés: "),
        ("hu", ACTIONS["sail"], ": hajózás: "),
        ("zh", ACTION_PLANT, "（`pass`）：种植："),
        ("zh", ACTIONS["fish"], "（`pass`）：捕鱼："),
        ("en", ACTION_PLANT, ": plant: "),
    ],
)
def test_a_rules_error_names_its_action_in_the_readers_words(lang: str, action: str, said: str) -> None:
    error = RulesError("x.y", T_("the game is over"), step=0, action=action, quote="pass")
    with language(lang):
        text = rules_error(error, _Lines())  # type: ignore[arg-type]
    assert said in text, text
    assert "Plant" not in text and "sail" not in text.replace("(`", "")
