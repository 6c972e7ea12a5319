"""The ``pbem`` command, driven as DESIGN.md spells it: a scripted game, bad input, help and exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from host.conftest import Ran, run_pbem
from pbem.cli.app import app
from pbem.core import markers
from pbem.intake.envelope import PASSWORD_PLACEHOLDER

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
    # the turn being played: the one the template and the orders name
    assert (status["turn"], status["awaited"], status["finished"]) == (1, ["red", "blue"], False)
    assert status["turns_resolved"] == 0

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

    monkeypatch.setattr("pbem.play.status.status", boom)
    ran = pbem("status")
    assert (
        ran.code == 3  # not 1: a script tells a bug from rejected input
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
    orders = schema["properties"]["orders"]
    assert orders["title"].startswith("orders: bid: ") and "; dive: " in orders["title"]
    assert sorted(orders["items"]["properties"]) == ["bid", "dive"]  # every decision's steps
    only = json.loads(pbem("schema", "pearl-dive", "--decision", "dive").out)
    assert list(only["properties"]["orders"]["items"]["properties"]) == ["dive"]
    assert only["properties"]["orders"]["maxItems"] == 1
    assert pbem("schema", "pearl-dive", "--decision", "swim").code == 1


def test_template_is_a_file_to_fill_in(pbem: Pbem) -> None:
    new_game(pbem)
    text = pbem("template", "reef-7", "--player", "red").out
    data = yaml.safe_load(text)
    assert data["password"] == PASSWORD_PLACEHOLDER and data["turn"] == 1 and data["player"] == "red"
    assert text.startswith(
        f"{markers.BEGIN}\n"
        "# yaml-language-server: $schema=pearl-dive.schema.json\n"
        "# Pearl Dive · game reef-7 · turn 1 · orders of red"
    )
    assert text.endswith(f"{markers.END}\n")


def test_status_lists_every_game(pbem: Pbem) -> None:
    new_game(pbem, "one")
    new_game(pbem, "two")
    entries = json.loads(pbem("status", "--json").out)
    assert [e["id"] for e in entries] == ["one", "two"]
    assert "awaiting orders from: red, blue" in pbem("status").out


def test_status_numbers_the_turn_being_played_and_gives_iso_times(pbem: Pbem) -> None:
    ran = pbem(
        "new", "pearl-dive", "--id", "d1", "--player", "red=a@x.org", "--player", "blue=b@x.org",
        "--seed", "1", "--deadline", "2d", "--now", "2026-03-02T09:00:00",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    entry = json.loads(pbem("status", "d1", "--json").out)
    assert (entry["turn"], entry["turns_resolved"]) == (1, 0)
    assert entry["deadline"] == "2026-03-04T09:00:00+00:00"
    assert datetime.fromisoformat(entry["created_at"]).utcoffset() is not None
    text = pbem("status", "d1").out
    assert "turn 1  active" in text and "deadline: 2026-03-04 09:00 UTC" in text
    template_turn = yaml.safe_load(pbem("template", "d1", "--player", "red").out)["turn"]
    assert template_turn == entry["turn"]  # one number for the turn everywhere


def test_a_paused_game_says_paused(pbem: Pbem) -> None:
    new_game(pbem, "p1")
    assert pbem("pause", "p1").code == 0
    text = pbem("status", "p1").out
    assert "paused" in text and "nobody" not in text
    assert json.loads(pbem("status", "p1", "--json").out)["status"] == "paused"


def test_seats_named_after_another_colour_are_pointed_out(pbem: Pbem) -> None:
    args = ["new", "reef-encounter", "--id", "c1", "--player", "red=a@x.org", "--player", "blue=b@x.org"]
    ran = pbem(*args, "--seed", "1", "--json")
    assert ran.code == 0
    colours = {s["seat"]: s["colour"] for s in json.loads(ran.out)["seats"]}
    assert colours["red"] != "red"  # Reef Encounter deals its shrimp colours by seating order
    assert f"seat red plays {colours['red']}" in ran.err and "name seats after people" in ran.err
    named = pbem("new", "reef-encounter", "--id", "c2", "--player", "ann=a@x.org", "--player", "bo=b@x.org")
    assert named.code == 0 and "note:" not in named.err


def test_version(pbem: Pbem) -> None:
    import pbem as package

    ran = pbem("--version")
    assert ran.code == 0 and ran.out == f"pbem {package.__version__}\n"


def _command_paths(command: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _command_paths(sub, (*prefix, name))
    return paths


def test_help_has_no_type_placeholders(pbem: Pbem, monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    monkeypatch.setenv("COLUMNS", "100")
    paths = _command_paths(typer.main.get_command(app))
    assert len(paths) > 15
    for path in paths:
        ran = pbem(*path, "--help")
        assert ran.code == 0, (path, ran.err)
        for placeholder in ("<bool>", "<str>", "<int>", "<list", "<path>"):
            assert placeholder not in ran.out, (path, placeholder)
    assert "NAME=EMAIL" in pbem("new", "--help").out


def test_every_command_that_prints_data_speaks_json(pbem: Pbem, tmp_path: Path) -> None:
    passwords = new_game(pbem)
    red = tmp_path / "red.yaml"
    red.write_text(fill(pbem("template", "reef-7", "--player", "red", "--suggest").out, passwords["red"]))
    checked = json.loads(pbem("check", str(red), "--json").out)
    assert checked["ok"] and checked["preview"].startswith("=")
    (answer,) = json.loads(pbem("submit", str(red), "--json").out)
    assert (answer["accepted"], answer["seat"], answer["turn"]) == (True, "red", 1)
    assert answer["receipt"] == checked["receipt"]  # the dry run's receipt is the real one
    bad = tmp_path / "bad.yaml"
    bad.write_text(red.read_text().replace("bid:", "bdi:"))
    ran = pbem("submit", str(bad), "--json")
    assert ran.code == 1 and json.loads(ran.out)[0]["errors"][0].startswith("line ")
    blue = tmp_path / "blue.yaml"
    blue.write_text(fill(pbem("template", "reef-7", "--player", "blue", "--suggest").out, passwords["blue"]))
    assert pbem("submit", str(blue)).code == 0
    assert json.loads(pbem("process", "reef-7", "--json").out) == [{"id": "reef-7", "resolved": [1]}]
    steps = json.loads(pbem("replay", "reef-7", "--json").out)
    assert [s["turn"] for s in steps] == [0, 1] and all(len(s["sha256"]) == 64 for s in steps)


def test_the_same_orders_from_two_seats_get_two_receipts(pbem: Pbem, tmp_path: Path) -> None:
    import re

    for seed in range(1, 40):  # the first seed dealing both seats a pearl of the same worth
        game_id = f"same-{seed}"
        seats = ["--player", "red=a@x.org", "--player", "blue=b@x.org"]
        made = pbem("new", "pearl-dive", "--id", game_id, *seats, "--seed", str(seed), "--json")
        passwords = {s["seat"]: s["password"] for s in json.loads(made.out)["seats"]}
        texts = {seat: pbem("template", game_id, "--player", seat).out for seat in passwords}
        hands = [set(re.search(r"you hold \(([^)]*)\)", t).group(1).split(", ")) for t in texts.values()]  # type: ignore[union-attr]
        if hands[0] & hands[1]:
            break
    pearl = int(min(hands[0] & hands[1]))
    receipts = []
    for seat, text in texts.items():
        data = yaml.safe_load(fill(text, passwords[seat]))
        data["orders"] = [{"bid": pearl}]
        path = tmp_path / f"{seat}.yaml"
        path.write_text(yaml.safe_dump(data))
        answer = json.loads(pbem("submit", str(path), "--json").out)[0]
        assert answer["accepted"], answer["errors"]
        receipts.append(answer["receipt"])
    assert receipts[0] != receipts[1]
