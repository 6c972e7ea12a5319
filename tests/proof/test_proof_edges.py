"""The third pass's families of the campaign (long values on both databases, decoders' edges, hostile
archives) at a tiny size: every zero goal met."""

from __future__ import annotations

from pathlib import Path

from proof import edges


def test_the_edge_families_meet_every_zero_goal(tmp_path: Path) -> None:
    figures = edges.run(tmp_path, scale=0.02)
    assert figures.values["edges.long_value_backends"] == 2
    assert figures.values["edges.hostile_archives"] == 2 * len(edges.HOSTILE_ARCHIVES)
    assert figures.values["edges.decoder_mails"] >= 15
    assert figures.missed() == [], (figures.values, figures.findings)
