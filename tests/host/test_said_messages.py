"""The reports' ``_()`` looks each message up once a language (``pbem.render.environment._said``): the same
words as a fresh look-up, a stood-in catalog heard, forgotten on reload, and bounded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from jinja2 import DictLoader

from pbem.core import i18n
from pbem.render import environment as render
from pbem.render.environment import environment

SOURCE = '{{ _("Scores") }}|{{ _("100%% sure") }}|{{ _("turn %(turn)s:", turn=t) }}|{{ _("a < b") }}'


@pytest.fixture
def pages() -> Iterator[object]:
    loader = DictLoader({"t.html.j2": SOURCE, "t.txt.j2": SOURCE})
    yield environment().overlay(loader=loader, cache_size=10)
    i18n.reload()  # the words a stood-in catalog left are forgotten


def test_each_message_is_looked_up_once_a_language(pages: object, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def lookup(message: str) -> str:
        asked.append(message)
        return {"Scores": "Pontok", "turn %(turn)s:": "%(turn)s. kör:"}.get(message, message)

    monkeypatch.setattr(i18n, "gettext", lookup)
    with i18n.language("hu"):
        for _ in range(3):
            assert pages.get_template("t.html.j2").render(t="<5>") == "Pontok|100% sure|&lt;5&gt;. kör:|a < b"  # type: ignore[attr-defined]
            assert pages.get_template("t.txt.j2").render(t="<6>") == "Pontok|100% sure|<6>. kör:|a < b"  # type: ignore[attr-defined]
    assert sorted(asked) == sorted(["Scores", "100%% sure", "turn %(turn)s:", "a < b"])
    with i18n.language("cs"):  # another language: its own look-ups
        pages.get_template("t.txt.j2").render(t=1)  # type: ignore[attr-defined]
    assert len(asked) == 8


def test_another_catalog_is_heard_and_a_reload_forgets(
    pages: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    with i18n.language("hu"):
        monkeypatch.setattr(i18n, "gettext", lambda message: "A")
        assert pages.get_template("t.txt.j2").render(t=1).startswith("A|")  # type: ignore[attr-defined]
        monkeypatch.setattr(i18n, "gettext", lambda message: "B")  # a catalog stood in anew
        assert pages.get_template("t.txt.j2").render(t=1).startswith("B|")  # type: ignore[attr-defined]
        assert render._said
        i18n.reload()
        assert not render._said


def test_the_table_keeps_at_most_its_limit(pages: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "SAID_LIMIT", 3)
    monkeypatch.setattr(i18n, "gettext", lambda message: message.upper())
    source = "".join(f'{{{{ _("m{n}") }}}}' for n in range(10))
    with i18n.language("ru"):
        shown = environment().from_string(source).render()
        assert shown == "".join(f"M{n}" for n in range(10))
        [table] = [t for key, t in render._said.items() if key[1] == "ru"]
        assert list(table) == ["m7", "m8", "m9"]  # the newest three
