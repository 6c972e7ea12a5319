"""Autoescaped output written by ``pbem.render.jinja_context.escaped``: the page Jinja and markupsafe
write."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import DictLoader, Environment, StrictUndefined, UndefinedError
from markupsafe import Markup, escape

from pbem.core import i18n
from pbem.core.i18n import P_
from pbem.render.environment import environment
from pbem.render.jinja_context import EscapingCodeGenerator, escaped


class _Html:
    def __html__(self) -> str:
        return "<i>safe</i>"

    def __repr__(self) -> str:  # the test's id: the same in every pytest-xdist worker
        return "_Html()"


class _Shown:
    def __str__(self) -> str:
        return "a < b & 'c'"

    def __repr__(self) -> str:
        return "_Shown()"


VALUES: list[Any] = [
    "plain",
    "<script>alert('x') & \"y\"</script>",
    "",
    Markup("<b>bold</b> &amp;"),
    P_("colour", "orange"),  # a str subclass (a game's term)
    42,
    -7,
    1.5,
    float("inf"),
    True,
    None,
    _Html(),
    _Shown(),
    ["<li>", 1],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_escaped_is_the_text_of_markupsafes_escape(value: Any) -> None:
    assert escaped(value) == str(escape(value))


SOURCE = (
    "{% macro m(x) %}<p>{{ x }}</p>{% endmacro %}"
    "{% set block %}<{{ v }}>{% endset %}"
    "{{ v }}|{{ m(v) }}|{{ block }}|{{ v ~ '&' }}|{{ v | upper }}|{{ '<' ~ v }}|"
    "{% for i in [v, 3] %}{{ i }}{% endfor %}"
)


def _pair() -> tuple[Environment, Environment]:
    loader = DictLoader({"t.html.j2": SOURCE, "t.txt.j2": SOURCE})
    stock = Environment(loader=loader, autoescape=lambda name: bool(name and name.endswith("html.j2")))
    ours = Environment(loader=loader, autoescape=lambda name: bool(name and name.endswith("html.j2")))
    ours.code_generator_class = EscapingCodeGenerator
    ours.escaped = escaped  # type: ignore[attr-defined]
    return stock, ours


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("name", ["t.html.j2", "t.txt.j2"])
def test_a_page_is_the_one_jinjas_own_code_writes(value: Any, name: str) -> None:
    stock, ours = _pair()
    assert ours.get_template(name).render(v=value) == stock.get_template(name).render(v=value)


def test_an_html_value_is_escaped_and_a_macro_is_not_escaped_twice() -> None:
    page = environment().from_string(SOURCE)  # from a string: not autoescaped, as Jinja's
    assert "<script>" in page.render(v="<script>")
    _stock, ours = _pair()
    shown = ours.get_template("t.html.j2").render(v="<a&b>")
    assert shown.startswith("&lt;a&amp;b&gt;|<p>&lt;a&amp;b&gt;</p>|<&lt;a&amp;b&gt;>|")


def test_a_message_is_formatted_by_the_reports_gettext_only_with_plain_placeholders() -> None:
    from pbem.render.environment import _named_only

    assert _named_only("turn %(turn)s") and _named_only("100%% of %(x)s") and _named_only("none")
    assert not _named_only("%(n)d polyps") and not _named_only("50% off") and not _named_only("%s")


def test_an_undefined_value_still_fails() -> None:
    loader = DictLoader({"t.html.j2": "{{ missing }}"})
    ours = Environment(loader=loader, autoescape=True, undefined=StrictUndefined)
    ours.code_generator_class = EscapingCodeGenerator
    ours.escaped = escaped  # type: ignore[attr-defined]
    with pytest.raises(UndefinedError):
        ours.get_template("t.html.j2").render()


def test_the_reports_gettext_writes_what_jinjas_newstyle_gettext_writes() -> None:
    source = (
        '{{ _("none") }}|{{ _("100%% sure") }}|{{ _("%(n)s <b>", n="<i>") }}|{{ _("Scores") ~ "<" }}|'
        '{{ _("%(a)s and %(b)s, 100%%", a=m, b=7) }}|{{ _("%(n)d polyps & %(x)s", n=3, x="\'q\'") }}|'
        '{{ _("turn %(turn)s", turn=t) }}'
    )
    loader = DictLoader({"t.html.j2": source, "t.txt.j2": source})
    stock = Environment(loader=loader, autoescape=lambda name: bool(name and name.endswith("html.j2")))
    stock.add_extension("jinja2.ext.i18n")
    stock.install_gettext_callables(gettext=i18n.gettext, ngettext=i18n.plural, newstyle=True)  # type: ignore[attr-defined]
    ours = environment().overlay(loader=loader, cache_size=10)
    for language in ("en", "hu"):
        with i18n.language(language):
            for name in ("t.html.j2", "t.txt.j2"):
                values = {"m": Markup("<em>x</em>"), "t": "<5>"}
                assert ours.get_template(name).render(values) == stock.get_template(name).render(values)
