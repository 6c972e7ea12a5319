"""The ``translated_values`` filter: a mapping's words put in the reader's words once, for a table."""

from __future__ import annotations

from games.reef_encounter.words import COLOURS
from pbem.core import i18n
from pbem.core.i18n import P_
from pbem.render.environment import environment, grid_items, translated_values


def test_each_value_is_what_the_translated_filter_shows_in_the_current_language() -> None:
    for language in ("en", "hu", "zh"):
        with i18n.language(language):
            assert translated_values(COLOURS) == {name: i18n._(word) for name, word in COLOURS.items()}
    with i18n.language("hu"):
        hungarian = translated_values(COLOURS)
    with i18n.language("en"):
        english = translated_values(COLOURS)
    assert english["orange"] == "orange" and hungarian["orange"] != "orange"


def test_only_the_keys_asked_for() -> None:
    with i18n.language("hu"):
        assert translated_values(COLOURS, ["pink", "grey"]) == {
            "pink": i18n._(COLOURS["pink"]),
            "grey": i18n._(COLOURS["grey"]),
        }


def test_a_template_shows_the_same_words_as_with_the_translated_filter() -> None:
    env = environment()
    once = env.from_string(
        "{% set w = words | translated_values %}{% for c in order %}{{ w[c] }},{% endfor %}"
    )
    each = env.from_string("{% for c in order %}{{ words[c] | translated }},{% endfor %}")
    order = ["yellow", "grey", "red", "yellow"]
    for language in ("en", "ru"):
        with i18n.language(language):
            assert once.render(words=COLOURS, order=order) == each.render(words=COLOURS, order=order)


def test_grid_items_is_what_jinjas_map_filters_give() -> None:
    grid = [[{"kind": "rock", "n": 1}, {"kind": "sand", "n": 2}], [{"kind": "starfish", "n": 3}]]
    env = environment()
    jinja = env.from_string(
        '{{ (g | map("map", attribute="kind") | map("list") | list) == g | grid_items("kind") }}'
    )
    assert jinja.render(g=grid) == "True"
    assert grid_items(grid, "n") == [[1, 2], [3]]


def test_grid_items_reads_rows_of_tuples_by_position() -> None:
    grid = ((("Aa1", "rock"), ("Ab1", "sand")), (("Aa2", "starfish"),))
    assert grid_items(grid, 1) == [["rock", "sand"], ["starfish"]]
    assert environment().from_string("{{ g | grid_items(0) }}").render(g=grid) == "[['Aa1', 'Ab1'], ['Aa2']]"


def test_counted_writes_what_a_loop_of_joined_counts_writes() -> None:
    from jinja2 import DictLoader

    from pbem.render.environment import counted

    source = (
        '{% set parts = [] %}{% for k in order %}{% if c[k] %}{% set _x = parts.append(c[k] ~ " " ~ w[k]) %}'
        '{% endif %}{% endfor %}{{ parts | join(", ") if parts else "none" }}|'
        '{{ c | counted(order, w) or "none" }}'
    )
    pages = environment().overlay(loader=DictLoader({"t.html.j2": source, "t.txt.j2": source}))
    words = {"grey": "szürke", "pink": "<rózsaszín>", "white": P_("colour", "white")}
    order = ["white", "grey", "pink"]
    for c in [
        {"grey": 2, "pink": 0, "white": 1},
        {"grey": 0, "pink": 0, "white": 0},
        {"grey": 0, "pink": 3, "white": 0},
    ]:
        for name in ("t.html.j2", "t.txt.j2"):  # escaped and not
            loop, filtered = pages.get_template(name).render(c=c, order=order, w=words).split("|")
            assert loop == filtered and (name == "t.txt.j2" or "&lt;" in loop or "<" not in loop)
    assert (
        counted({"grey": 2, "pink": 1, "white": 0}, order, words, "{word} {count}")
        == "szürke 2, <rózsaszín> 1"
    )
    shown = environment().get_template("reef-encounter/report.html.j2").environment.filters["counted"]
    assert shown is counted
