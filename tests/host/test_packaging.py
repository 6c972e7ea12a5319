"""``pip install .`` (not editable) gives a working ``pbem`` with the templates and every game's data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pip_install_dot_carries_templates_and_data_and_runs_a_demo(tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "-q",
            "install",
            "--no-deps",
            "--target",
            str(target),
            str(ROOT),
        ],
        check=True,
    )
    assert (target / "pbem" / "templates" / "base.html.j2").is_file()
    assert (target / "pbem" / "templates" / "base.txt.j2").is_file()
    for game in ("reef_encounter", "mare_balticum", "coral_divers"):
        assert list((target / "games" / game / "data").glob("*.yaml")), game
        assert len(list((target / "pbem" / "templates" / game.replace("_", "-")).glob("report.*.j2"))) == 2, (
            game
        )

    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_GAMES", "PBEM_DB")}
    env["PYTHONPATH"] = str(target)
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import pbem, pbem.render.environment as r; print(pbem.__file__); print(r.template_dirs()[0])",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout.split()
    assert all(line.startswith(str(target)) for line in where), where
    demo = subprocess.run(
        [str(target / "bin" / "pbem"), "demo", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert demo.returncode == 0, demo.stderr
    assert (tmp_path / "out" / "index.html").is_file()
    assert "Reef Encounter" in (tmp_path / "out" / "alice" / "turn-0000.txt").read_text()
