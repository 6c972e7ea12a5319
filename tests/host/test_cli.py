"""The ``pbem`` command, driven as DESIGN.md spells it: a scripted game, bad input, help and exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from host.conftest import Ran, run_pbem
from pbem import markers
from pbem.cli import app
from pbem.envelope import PASSWORD_PLACEHOLDER

Pbem = Callable[..., Ran]


def fill(text: str, password: str) -> str:
    return text.replace(PASSWORD_PLACEHOLDER, password)


def new_game(pbem: Pbem, game_id: str = "reef-7") -> dict[str, str]:
    ran = pbem(
        "new",
        "pearl-dive",
        "--id",
        game_id,
        "--player",
        "red=alice@example.org",
        "--player",
        "blue=bob@example.org",
        "--seed",
        "42",
        "--option",
        "rounds=2",
        "--json",
    )
    assert ran.code == 0, ran.err
    return {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}


def test_a_scripted_game_through_the_cli(pbem: Pbem, tmp_path: Path) -> None:
    passwords = new_game(pbem)
    status = json.loads(pbem("status", "reef-7", "--json").out)
    assert (status["turn"], status["awaited"], status["finished"]) == (0, ["red", "blue"], False)

    red = tmp_path / "red.yaml"
    red.write_text(fill(pbem("template", "reef-7", "--player", "red", "--suggest").out, passwords["red"]))
    checked = pbem("check", str(red))
    assert checked.code == 0 and "Preview" in checked.out
    assert pbem("submit", str(red)).code == 0

    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(red.read_text().replace(passwords["red"], "tulip-frog-42"))
    ran = pbem("submit", str(wrong))
    assert ran.code == 1 and "[auth.failed]" in ran.err

    broken = tmp_path / "broken.yaml"
    broken.write_text("game: reef-7\norders: [bid: 3\n")
    ran = pbem("submit", str(broken))
    assert ran.code == 1 and "yaml: line 3" in ran.err and "Traceback" not in ran.err

    huge = tmp_path / "huge.yaml"
    huge.write_bytes(b"a" * (10 * 1024 * 1024))
    ran = pbem("submit", str(huge))
    assert ran.code == 1 and "[input.too_large]" in ran.err

    blue = tmp_path / "blue.yaml"
    blue.write_text(fill(pbem("template", "reef-7", "--player", "blue", "--suggest").out, passwords["blue"]))
    assert pbem("submit", str(blue)).code == 0
    assert "reef-7: resolved turn 1" in pbem("process", "reef-7").out
    assert "reef-7: nothing to resolve" in pbem("process", "--all").out

    ran = pbem("submit", str(red))  # now a stale turn
    assert ran.code == 1 and ("[turn.stale]" in ran.err or "[turn.not_yours]" in ran.err)

    for _ in range(10):
        entry = json.loads(pbem("status", "reef-7", "--json").out)
        if entry["finished"]:
            break
        for seat in entry["awaited"]:
            path = tmp_path / f"{seat}-{entry['turn']}.yaml"
            path.write_text(
                fill(pbem("template", "reef-7", "--player", seat, "--suggest").out, passwords[seat])
            )
            assert pbem("submit", str(path)).code == 0
        pbem("process", "reef-7")
    entry = json.loads(pbem("status", "reef-7", "--json").out)
    assert entry["finished"] and sorted(entry["ranking"]) == ["blue", "red"]
    assert set(entry["scores"]) == {"red", "blue"}

    assert "Report for red" in pbem("report", "reef-7", "--player", "red", "--turn", "1").out
    assert pbem("report", "reef-7", "--player", "red", "--format", "html").out.startswith("<!DOCTYPE html>")
    ran = pbem("replay", "reef-7", "--verify")
    assert ran.code == 0 and "every state hash matches" in ran.out

    archive = tmp_path / "reef-7.yaml"
    assert pbem("export", "reef-7", "-o", str(archive)).code == 0
    other = tmp_path / "other.sqlite"
    imported = run_pbem("import", str(archive), "--db", f"sqlite:///{other}")
    assert imported.returncode == 0, imported.stderr
    verified = run_pbem("replay", "reef-7", "--verify", "--db", f"sqlite:///{other}")
    assert verified.returncode == 0 and "every state hash matches" in verified.stdout
    replayed = pbem("replay", str(archive), "--turn", "1", "--player", "blue")
    assert replayed.code == 0 and "Report for blue" in replayed.out
    assert replayed.out == pbem("report", "reef-7", "--player", "blue", "--turn", "1").out
    everything = pbem("replay", str(archive), "--turn", "1")
    assert "Report for red" in everything.out and "Report for blue" in everything.out


def test_new_lists_the_installed_games(pbem: Pbem) -> None:
    ran = pbem("new")
    assert ran.code == 0
    assert "pearl-dive" in ran.out and "Pearl Dive (2-4 players)" in ran.out


def test_new_shows_passwords_once_and_stores_only_hashes(pbem: Pbem, db_url: str) -> None:
    passwords = new_game(pbem)
    database = Path(db_url.removeprefix("sqlite:///")).read_bytes()
    for password in passwords.values():
        assert password.encode() not in database


def test_bad_input_is_one_line_and_exit_1(pbem: Pbem, tmp_path: Path) -> None:
    new_game(pbem)
    cases = [
        ("new", "chess", "--id", "x", "--player", "a=a@b.c"),
        ("new", "pearl-dive", "--id", "reef-7", "--player", "a=a@b.c", "--player", "b=b@b.c"),
        ("new", "pearl-dive", "--id", "solo", "--player", "a=a@b.c"),
        (
            "new",
            "pearl-dive",
            "--id",
            "opt",
            "--player",
            "a=a@b.c",
            "--player",
            "b=b@b.c",
            "--option",
            "rounds=99",
        ),
        ("report", "nope", "--player", "red"),
        ("template", "reef-7", "--player", "purple"),
        ("submit", str(tmp_path / "missing.yaml")),
        ("import", str(tmp_path / "missing.yaml")),
        ("schema", "chess"),
        ("status", "nope"),
    ]
    for args in cases:
        ran = pbem(*args)
        assert ran.code == 1, args
        assert len(ran.err.strip().splitlines()) == 1 and "Traceback" not in ran.err, (args, ran.err)


def test_usage_errors_exit_2(pbem: Pbem) -> None:
    assert pbem("report").code == 2
    assert pbem("new", "pearl-dive", "--id", "x", "--deadline", "soon", "--player", "a=b").code == 2
    assert pbem("process").code == 2
    assert pbem("frobnicate").code == 2


def test_new_takes_the_pretend_clock_for_its_first_deadline(pbem: Pbem) -> None:
    args = ("new", "pearl-dive", "--id", "clocked", "--player", "red=a@x.org", "--player", "blue=b@x.org")
    ran = pbem(*args, "--deadline", "1d12h", "--now", "2026-03-02T09:00")
    assert ran.code == 0, ran.err
    assert "deadline: 2026-03-03 21:00 UTC" in pbem("status", "clocked").out


def test_one_duration_grammar_for_every_command(pbem: Pbem) -> None:
    ran = pbem("new", "pearl-dive", "--id", "x", "--player", "a=b@x.org", "--deadline", "2x")
    assert ran.code == 2
    assert "not a duration: '2x' (write e.g. 48h, 2d, 1d12h, 90m)" in " ".join(ran.err.split())


def test_a_bug_is_one_line_unless_debugging(pbem: Pbem, monkeypatch: pytest.MonkeyPatch) -> None:
    new_game(pbem)

    def boom(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("pbem.status.status", boom)
    ran = pbem("status")
    assert (
        ran.code == 1
        and ran.err.strip() == "pbem: internal error: ZeroDivisionError: a bug (PBEM_DEBUG=1 shows where)"
    )
    monkeypatch.setenv("PBEM_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        pbem("status")


def test_every_command_has_help_with_an_example(pbem: Pbem) -> None:
    names = sorted(c.name or c.callback.__name__ for c in app.registered_commands)  # type: ignore[union-attr]
    expected = {
        "new",
        "submit",
        "check",
        "process",
        "report",
        "status",
        "replay",
        "export",
        "import",
        "schema",
        "template",
        "demo",
    }
    assert expected <= set(names)
    for name in names:
        ran = pbem(name, "--help")
        assert ran.code == 0, name
        assert "Example:" in ran.out and "pbem " + name in ran.out, name


def test_schema_covers_the_envelope_and_every_decision(pbem: Pbem) -> None:
    schema = json.loads(pbem("schema", "pearl-dive").out)
    assert set(schema["required"]) == {"game", "player", "turn", "password", "orders"}
    titles = [choice["title"] for choice in schema["properties"]["orders"]["anyOf"]]
    assert [t.split(":")[0] for t in titles] == ["bid", "dive"]
    only = json.loads(pbem("schema", "pearl-dive", "--decision", "dive").out)
    assert "anyOf" not in only["properties"]["orders"]
    assert pbem("schema", "pearl-dive", "--decision", "swim").code == 1


def test_template_is_a_file_to_fill_in(pbem: Pbem) -> None:
    new_game(pbem)
    text = pbem("template", "reef-7", "--player", "red").out
    data = yaml.safe_load(text)
    assert data["password"] == PASSWORD_PLACEHOLDER and data["turn"] == 1 and data["player"] == "red"
    assert text.startswith(f"{markers.BEGIN}\n# Pearl Dive · game reef-7 · turn 1 · orders of red")
    assert text.endswith(f"{markers.END}\n")


def test_status_lists_every_game(pbem: Pbem) -> None:
    new_game(pbem, "one")
    new_game(pbem, "two")
    entries = json.loads(pbem("status", "--json").out)
    assert [e["id"] for e in entries] == ["one", "two"]
    assert "awaiting orders from: red, blue" in pbem("status").out
