"""A wrapped line of a text report never cuts an id at its hyphen: ``landsort-deep`` stays whole, so a
reader (or a copy into an order file) never meets ``landsort-`` and ``deep`` on two lines."""

from __future__ import annotations

from pbem.render.environment import environment


def test_wordwrap_keeps_hyphenated_ids_whole() -> None:
    line = "  gotland-deep: eastern-gotland, western-gotland, irbe-strait, landsort-deep, northern-baltic"
    wrapped = environment().from_string("{{ line | wordwrap(76) }}").render(line=line)
    assert "landsort-deep" in wrapped.split("\n")[-1] or "landsort-deep" in wrapped.split("\n")[0]
    assert all(not row.endswith("-") for row in wrapped.split("\n"))
