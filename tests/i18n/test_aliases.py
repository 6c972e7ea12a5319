"""Colour and goods names in a player's language are read as the grammar's keywords, in every
language; the order then means exactly what the English one does, and the schema is unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from sqlmodel import Session, select

import games.mare_balticum
import games.reef_encounter
from games.mare_balticum.orders import Fish
from games.reef_encounter.orders import Algae, Larva
from pbem.core.glossary import GlossaryError, aliases
from pbem.core.i18n import LANGUAGES
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import submit, template
from pbem.storage.db import connect
from pbem.storage.models import SubmissionRow

REEF = games.reef_encounter.GLOSSARY
BALTIC = games.mare_balticum.GLOSSARY


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_colour_in_every_language_is_its_keyword(lang: str) -> None:
    for colour in ("grey", "orange", "pink", "white", "yellow"):
        word = REEF.word(colour, lang)
        assert Larva.model_validate({"larva": word}).larva == colour
        assert Larva.model_validate({"larva": word.upper()}).larva == colour
    for alga in ("blue", "green", "purple", "red"):
        play = {"algae": {"pay": "white", "colour": REEF.word(alga, lang), "to": "space"}}
        assert Algae.model_validate(play).algae.colour == alga


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_goods_name_in_every_language_is_its_keyword(lang: str) -> None:
    for goods in ("salmon", "flatfish", "herring", "cod", "amber"):
        fish = Fish.model_validate({"fish": {"at": "bornholm", "goods": BALTIC.word(goods, lang)}})
        assert fish.fish.goods == goods


def test_russian_e_and_yo_are_one_letter() -> None:
    assert Larva.model_validate({"larva": "желтый"}).larva == "yellow"


def test_an_unknown_word_is_still_refused_with_the_keywords() -> None:
    with pytest.raises(ValueError, match="'grey', 'orange', 'pink', 'white' or 'yellow'"):
        Larva.model_validate({"larva": "violet"})


def test_the_schema_names_only_the_keywords() -> None:
    schema = json.dumps(Larva.model_json_schema(), ensure_ascii=False)
    assert '"yellow"' in schema and "sárga" not in schema


def test_an_alias_meaning_two_keywords_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "glossary"
    shutil.copytree(Path(games.reef_encounter.__file__).parent / "data" / "glossary", folder)
    hu = folder / "hu.yaml"
    hu.write_text(
        hu.read_text(encoding="utf-8").replace("{word: rózsaszín,", "{word: fehér,"), encoding="utf-8"
    )
    with pytest.raises(GlossaryError, match="'fehér' would mean both white and pink"):
        aliases(folder, ("white", "pink"))


def test_a_hungarian_setup_order_is_stored_with_the_keywords(tmp_path: Path) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    issued = create_game(engine, "reef-encounter", "re-1", [("ann", ""), ("bo", "")], seed=4, language="hu")
    data = yaml.safe_load(
        template(engine, "re-1", "ann", suggest=True).replace(PASSWORD_PLACEHOLDER, issued["ann"])
    )
    chosen = data["orders"][0]["setup"]
    hungarian = {c: REEF.word(c, "hu") for c in ("grey", "orange", "pink", "white", "yellow")}
    data["orders"] = [
        {
            "setup": {
                "parrotfish": hungarian[chosen["parrotfish"]],
                "larvae": [hungarian[c] for c in chosen["larvae"]],
            }
        }
    ]
    receipt = submit(engine, yaml.safe_dump(data, allow_unicode=True))
    assert receipt.accepted, receipt.errors
    with Session(engine) as session:
        row = session.exec(select(SubmissionRow).where(SubmissionRow.status == "accepted")).one()
    assert json.loads(row.orders_json or "null") == [{"setup": chosen}]
