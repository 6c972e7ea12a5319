"""pbem.core.i18n at work: catalogs of the host and of the games merged, plural forms, a translation with
wrong placeholders falling back to English, templates rendering in the current language, formats."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from pbem.core import i18n
from pbem.core.i18n import N_, _, language, ngettext


def write_catalog(folder: Path, domain: str, lang: str, messages: dict[object, object]) -> Path:
    """A ``.po`` (no ``.mo``: the loader compiles it) of ``messages`` under ``folder``."""
    catalog = Catalog(locale=lang, domain=domain)
    for msgid, msgstr in messages.items():
        catalog.add(msgid, msgstr)
    path = folder / lang / "LC_MESSAGES" / f"{domain}.po"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return path


@pytest.fixture
def catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A host catalog and a game catalog in ``tmp_path``, in place of the real ones."""
    host, game = tmp_path / "host", tmp_path / "game"
    write_catalog(
        host,
        "pbem",
        "hu",
        {
            "Scores": "Pontok",
            "Turn {turn}": "{turn}. kör",
            "Report for {seat}": "Jelentés {sajat}",  # a wrong placeholder: must not crash anyone
            "Next deadline: %(when)s": "Következő határidő: %(when)s",
            ("{n} polyp", "{n} polyps"): ("{n} polip", "{n} polip"),
            # a template's {% trans %} block: Jinja's own placeholders
            ("%(n)s polyp", "%(n)s polyps"): ("%(n)s polip", "%(n)s polip"),
        },
    )
    write_catalog(game, "reef", "hu", {"parrotfish": "papagájhal", "Scores": "Pontszámok"})
    write_catalog(
        host,
        "pbem",
        "ru",
        {
            ("{n} polyp", "{n} polyps"): ("{n} полип", "{n} полипа", "{n} полипов"),
            # the singular names no count; the reader's forms all do (Russian says "1 шаг" as "21 шаг")
            ("the last step", "the last {n} steps"): (
                "{n} последний шаг",
                "{n} последних шага",
                "{n} последних шагов",
            ),
        },
    )
    monkeypatch.setattr(i18n, "catalog_dirs", lambda: [(host, "pbem"), (game, "reef")])
    i18n.reload()
    yield tmp_path
    i18n.reload()


def test_english_outside_any_language_block(catalogs: Path) -> None:
    assert i18n.current_language() == "en"
    assert _("Turn {turn}", turn=3) == "Turn 3"
    assert ngettext("{n} polyp", "{n} polyps", 2) == "2 polyps"


def test_host_and_game_catalogs_are_merged(catalogs: Path) -> None:
    with language("hu"):
        assert _("Turn {turn}", turn=3) == "3. kör"
        assert _("parrotfish") == "papagájhal"
        assert _("Scores") == "Pontszámok"  # the game's own word wins over the host's
        assert _("not in any catalog") == "not in any catalog"
    assert _("parrotfish") == "parrotfish"


def test_a_translation_with_other_placeholders_falls_back_to_english(catalogs: Path) -> None:
    with language("hu"):
        assert _("Report for {seat}", seat="red") == "Report for red"


def test_plural_forms_follow_the_language(catalogs: Path) -> None:
    with language("ru"):
        assert [ngettext("{n} polyp", "{n} polyps", n) for n in (1, 3, 5, 21)] == [
            "1 полип",
            "3 полипа",
            "5 полипов",
            "21 полип",
        ]
    with language("cs"):  # no catalog: English
        assert ngettext("{n} polyp", "{n} polyps", 1) == "1 polyp"


def test_a_form_may_name_the_count_its_singular_does_not(catalogs: Path) -> None:
    with language("ru"):
        assert [ngettext("the last step", "the last {n} steps", n) for n in (1, 2, 5)] == [
            "1 последний шаг",
            "2 последних шага",
            "5 последних шагов",
        ]


def test_templates_answer_in_the_current_language(catalogs: Path) -> None:
    from pbem.render.environment import environment

    template = environment().from_string(
        "{{ _('Scores') }} | {{ _('Next deadline: %(when)s', when=w) }} | "
        "{% trans n=k %}{{ n }} polyp{% pluralize %}{{ n }} polyps{% endtrans %}"
    )
    assert template.render(w="x", k=2) == "Scores | Next deadline: x | 2 polyps"
    with language("hu"):
        assert template.render(w="x", k=2) == "Pontszámok | Következő határidő: x | 2 polip"


def test_language_blocks_nest_and_restore() -> None:
    with language("hu"):
        with language("zh"):
            assert i18n.current_language() == "zh"
        assert i18n.current_language() == "hu"
    assert i18n.current_language() == "en"
    with pytest.raises(i18n.UnknownLanguage, match="use one of en, hu, cs, zh, ru"), language("de"):
        pass


def test_language_codes_are_normalised() -> None:
    assert [i18n.check_language(c) for c in ("HU", "zh-CN", "cs_CZ", " ru ")] == ["hu", "zh", "cs", "ru"]
    with pytest.raises(i18n.UnknownLanguage, match="'klingon'"):
        i18n.check_language("klingon")


def test_n_marks_without_translating(catalogs: Path) -> None:
    with language("hu"):
        assert N_("Scores") == "Scores"
        assert _(N_("Scores")) == "Pontszámok"


def test_the_real_catalogs_load_for_every_language() -> None:
    i18n.reload()
    for code in i18n.LANGUAGES[1:]:
        assert i18n._translations(code) is not None, code


DEADLINE = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("code", "tz", "expected"),
    [
        ("en", None, "Nov 30, 2026 18:00 UTC"),
        ("hu", "Europe/Budapest", "2026. nov. 30. 19:00 CET (18:00 UTC)"),
        ("cs", "Europe/Prague", "30. 11. 2026 19:00 CET (18:00 UTC)"),
        ("zh", "Asia/Shanghai", "2026年12月1日 02:00 CST (2026年11月30日 18:00 UTC)"),
        ("ru", "Europe/Moscow", "30 нояб. 2026\u202fг. 21:00 MSK (18:00 UTC)"),
    ],
)
def test_deadlines_in_each_language_name_their_zone(code: str, tz: str | None, expected: str) -> None:
    with language(code):
        assert i18n.format_deadline(DEADLINE, tz) == expected


def test_numbers_in_each_language() -> None:
    shown = {}
    for code in i18n.LANGUAGES:
        with language(code):
            shown[code] = i18n.format_number(12345)
    assert shown == {"en": "12,345", "hu": "12\xa0345", "cs": "12\xa0345", "zh": "12,345", "ru": "12\xa0345"}
