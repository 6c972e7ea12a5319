"""A rules error keeps its code and its English words as the engine wrote them, and is shown in the
reader's language wherever it is read; events likewise. The games' messages are catalog messages."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from pbem.core import i18n
from pbem.core.game import Event, RulesError
from pbem.core.i18n import T_, Text, _, language
from tests.i18n.test_language import write_catalog

MESSAGE = "you have no {colour} larva cube behind your screen"


@pytest.fixture
def hungarian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    write_catalog(tmp_path, "reef_encounter", "hu", {MESSAGE: "nincs {colour} lárvakockád a paraván mögött"})
    monkeypatch.setattr(i18n, "catalog_dirs", lambda: [(tmp_path, "reef_encounter")])
    i18n.reload()
    yield
    i18n.reload()


def test_a_text_is_its_english_words() -> None:
    text = T_(MESSAGE, colour="white")
    assert text == "you have no white larva cube behind your screen"
    assert isinstance(text, str) and text.msgid == MESSAGE and text.params == {"colour": "white"}
    assert pickle.loads(pickle.dumps(text)).params == {"colour": "white"}


def test_a_rules_error_is_shown_in_the_readers_language(hungarian: None) -> None:
    error = RulesError("larva.none", T_(MESSAGE, colour="white"), step=2, action="2", quote="larva: white")
    assert str(error) == (
        "orders[2] (larva: white): action 2: you have no white larva cube behind your screen [larva.none]"
    )
    with language("hu"):
        assert error.message == "nincs white lárvakockád a paraván mögött"
        assert str(error).endswith("nincs white lárvakockád a paraván mögött [larva.none]")
    assert error.code == "larva.none"


def test_an_event_is_shown_in_the_readers_language(hungarian: None) -> None:
    event = Event(T_(MESSAGE, colour="pink"), to="red")
    assert event.words() == "you have no pink larva cube behind your screen"
    with language("hu"):
        assert event.words() == "nincs pink lárvakockád a paraván mögött"
        assert _(Text(MESSAGE, {"colour": "grey"})) == "nincs grey lárvakockád a paraván mögött"


def test_a_real_engine_error_carries_its_message(hungarian: None) -> None:
    """Reef Encounter's own error for a missing larva cube is the catalog's message."""
    from games.reef_encounter import GAME
    from pbem.core.chance import Recorder

    state = GAME.setup(["red", "blue"], GAME.options_model(), Recorder.for_turn(5, 0, 0))
    setup = {
        seat: GAME.order_model(d).model_validate(
            [{"setup": {"parrotfish": "white", "larvae": ["grey", "grey"]}}]
        )
        for seat, d in GAME.pending(state).items()
    }
    try:
        state = GAME.resolve(state, setup, Recorder.for_turn(5, 0, 1)).state
    except RulesError:
        pytest.fail("the setup orders should be legal")
    seat, decision = next(iter(GAME.pending(state).items()))
    orders = GAME.order_model(decision).model_validate([{"larva": "white"}, {"take": "white"}])
    with pytest.raises(RulesError) as caught:
        GAME.resolve(state, {seat: orders}, Recorder.for_turn(5, 0, 2))
    assert caught.value.code == "larva.none"
    assert isinstance(caught.value.text, Text) and caught.value.text.msgid == MESSAGE
    with language("hu"):
        assert "nincs white lárvakockád a paraván mögött" in str(caught.value)
