"""``pbem schema GAME`` as editors use it, checked by ``check-jsonschema`` (what yaml-language-server does).

Every template the host prints during a whole bot game of each game validates (plain and with the bot's
suggestion filled in); broken files get diagnostics at the step that is wrong, naming it; every step
and field carries a description (the editor's hover text).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from pbem.core import registry
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.intake.schema import order_file_schema, schema_file_name
from pbem.play.create import create_game
from pbem.play.orders import submit, template
from pbem.play.status import status
from pbem.play.turns import process

GAMES = ["reef-encounter", "mare-balticum", "coral-divers"]
CHECK = Path(sys.executable).parent / "check-jsonschema"


def check_jsonschema(schema: Path, files: list[Path]) -> dict[str, Any]:
    """``check-jsonschema``'s JSON answer on ``files`` (one process for them all)."""
    done = subprocess.run(
        [str(CHECK), "-o", "json", "--schemafile", str(schema), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return json.loads(done.stdout)


def _write_schema(tmp_path: Path, game: str) -> Path:
    path = tmp_path / schema_file_name(game)
    path.write_text(json.dumps(order_file_schema(registry.require(game))))
    return path


@pytest.mark.parametrize("game", GAMES)
def test_every_template_of_a_whole_bot_game_validates(engine: Engine, tmp_path: Path, game: str) -> None:
    seats = [("ann", "a@x.org"), ("bo", "b@x.org"), ("cy", "c@x.org")]
    issued = create_game(engine, game, "g", seats, seed=2)
    files: list[Path] = []
    for turn in range(1, 400):
        entry = status(engine, "g")[0]
        if entry["finished"]:
            break
        for seat in entry["awaited"]:
            for suggest in (False, True):
                text = template(engine, "g", seat, suggest=suggest)
                # the marker line first (pbem.core.markers), then the editor's schema line
                assert text.splitlines()[1] == f"# yaml-language-server: $schema={game}.schema.json"
                path = tmp_path / f"t{turn:03d}-{seat}-{'bot' if suggest else 'plain'}.yaml"
                path.write_text(text)
                files.append(path)
            accepted = submit(engine, text.replace(PASSWORD_PLACEHOLDER, issued[seat]))
            assert accepted.accepted, accepted.errors
        process(engine, "g")
    assert status(engine, "g")[0]["finished"], "the bot game did not end"
    answer = check_jsonschema(_write_schema(tmp_path, game), files)
    assert answer["status"] == "ok", answer["errors"][:5]
    assert len(files) > 20


#: (game, orders lines, the path of the diagnostic, words in it)
BROKEN = [
    ("reef-encounter", ["- plase: Ca3"], "$.orders[0]", "'plase'"),
    ("reef-encounter", ["- larva:"], "$.orders[0].larva", "None"),
    ("reef-encounter", ["- larva: yellow", "- place: ac6"], "$.orders[1].place", "ac6"),
    ("reef-encounter", ["- pas"], "$.orders[0]", "'pas'"),
    ("reef-encounter", ["- take: purple"], "$.orders[0].take", "purple"),
    ("reef-encounter", ["- move_shrimp: {from: Bd5, too: Bd6}"], "$.orders[0].move_shrimp", "too"),
    ("coral-divers", ["- place: {tile: 1, at: z99}"], "$.orders[0].place.at", "z99"),
    ("coral-divers", ["- plant: {line: row 9}"], "$.orders[0].plant.line", "row 9"),
    ("mare-balticum", ["- fish: {at: nowhere, goods: salmon}"], "$.orders[0].fish.at", "nowhere"),
    ("mare-balticum", ["- sial: {to: gdansk-deep}"], "$.orders[0]", "'sial'"),
]


def test_broken_files_are_diagnosed_at_the_right_step(tmp_path: Path) -> None:
    files: dict[str, list[tuple[Path, str, str]]] = {}
    for number, (game, lines, where, word) in enumerate(BROKEN):
        path = tmp_path / f"broken-{number}.yaml"
        body = "".join(f"  {line}\n" for line in lines)
        path.write_text(f"game: g\nplayer: ann\nturn: 3\npassword: x\norders:\n{body}")
        files.setdefault(game, []).append((path, where, word))
    for game, cases in files.items():
        answer = check_jsonschema(_write_schema(tmp_path, game), [p for p, _w, _x in cases])
        for path, where, word in cases:
            found = [e for e in answer["errors"] if e["filename"] == str(path)]
            assert found, (path.name, "no diagnostic")
            assert {e["path"] for e in found} == {where}, (path.read_text(), found)
            assert any(word in e["message"] or word in json.dumps(e) for e in found), (word, found)


@pytest.mark.parametrize("game", GAMES)
def test_every_step_and_field_has_hover_text(game: str) -> None:
    schema = order_file_schema(registry.require(game))
    envelope = schema["properties"]
    assert all(envelope[name].get("description") for name in envelope), envelope
    items = schema["properties"]["orders"]["items"]
    steps = (items.get("else") or items)["properties"]
    for keyword, step in steps.items():
        assert step.get("description"), keyword
        assert step.get("examples"), keyword
    for name, shape in schema.get("$defs", {}).items():
        for field, spec in shape.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{field}"


def test_schema_writes_a_file(pbem: Any, tmp_path: Path) -> None:
    out = tmp_path / "reef-encounter.schema.json"
    ran = pbem("schema", "reef-encounter", "-o", str(out))
    assert ran.code == 0 and str(out) in ran.out
    assert json.loads(out.read_text())["title"] == "Reef Encounter order file"
    ran = pbem("schema", "reef-encounter", "-o", str(tmp_path / "no" / "such" / "dir.json"))
    assert ran.code == 1 and "cannot write" in ran.err
